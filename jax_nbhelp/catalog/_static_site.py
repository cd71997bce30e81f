"""Where a jitted function that a user's line calls is jitted, and which of its parameters
that jit treats as static: the decorator on its ``def``, a ``g = jax.jit(f, ...)`` line in any
cell, or ``jax.jit(f, ...)(...)`` on the calling line. Read from the cells' source, for the
entries about static arguments (one that cannot be hashed, one that holds an array).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import TypeVar

from jax_nbhelp.catalog import _scopes, _tracing
from jax_nbhelp.core.model import Location
from jax_nbhelp.diagnosis.context import ErrorContext

_Defined = TypeVar("_Defined", ast.FunctionDef, ast.ClassDef)

_JITTED = ("PjitFunction", "JitWrapped")


@dataclass(frozen=True)
class JitSite:
    function: str
    func: ast.FunctionDef
    static: tuple[str, ...]  # parameter names jit treats as static
    names_listed: tuple[str, ...]
    nums_listed: tuple[int, ...]
    location: Location  # the cell holding the jit, at its line


def _literal_strings(node: ast.expr) -> tuple[str, ...]:
    items = node.elts if isinstance(node, (ast.Tuple, ast.List)) else [node]
    return tuple(i.value for i in items if isinstance(i, ast.Constant)
                 and isinstance(i.value, str))


def _literal_ints(node: ast.expr) -> tuple[int, ...]:
    items = node.elts if isinstance(node, (ast.Tuple, ast.List)) else [node]
    return tuple(i.value for i in items if isinstance(i, ast.Constant)
                 and isinstance(i.value, int) and not isinstance(i.value, bool))


def _options(call: ast.Call) -> tuple[tuple[str, ...], tuple[int, ...]]:
    names: tuple[str, ...] = ()
    nums: tuple[int, ...] = ()
    for keyword in call.keywords:
        if keyword.arg == "static_argnames":
            names = _literal_strings(keyword.value)
        elif keyword.arg == "static_argnums":
            nums = _literal_ints(keyword.value)
    return names, nums


def _jit_options(decorator: ast.expr) -> ast.Call | None:
    if isinstance(decorator, ast.Call) and _tracing.jits(decorator):
        return decorator
    return None


def _site(func: ast.FunctionDef, function: str, options: ast.Call | None,
          location: Location) -> JitSite | None:
    if options is None:
        return None
    names, nums = _options(options)
    positional = [a.arg for a in [*func.args.posonlyargs, *func.args.args]]
    static = list(names)
    static += [positional[n] for n in nums if 0 <= n < len(positional)
               and positional[n] not in static]
    if not static:
        return None
    return JitSite(function, func, tuple(static), names, nums, location)


def _history(ctx: ErrorContext) -> list[tuple[Location, ast.Module]]:
    cells = []
    for number in sorted(ctx.cell_sources, reverse=True):
        place = ctx.cell(number)
        parsed = _tracing.parse(place.source) if place is not None else None
        if place is not None and parsed is not None:
            cells.append((place, parsed[0]))
    return cells


def _latest(cells: list[tuple[Location, ast.Module]], kind: type[_Defined],
            name: str) -> tuple[Location, _Defined] | None:
    for place, tree in cells:
        defs = [n for n in tree.body if isinstance(n, kind) and n.name == name]
        if defs:
            return place, defs[-1]
    return None


def latest_top_level(ctx: ErrorContext, kind: type[_Defined],
                     name: str) -> tuple[Location, _Defined] | None:
    """The latest cell's top-level ``def`` or ``class`` named ``name`` (``kind`` says which)."""
    return _latest(_history(ctx), kind, name)


def latest_functions(ctx: ErrorContext) -> dict[str, ast.FunctionDef]:
    """Each name's latest top-level ``def`` in the notebook's cells, read once for a caller
    that looks up many names."""
    found: dict[str, ast.FunctionDef] = {}
    for _, tree in _history(ctx):  # the latest cell first
        for node in reversed(tree.body):
            if isinstance(node, ast.FunctionDef):
                found.setdefault(node.name, node)
    return found


def latest_assignment(ctx: ErrorContext, name: str) -> tuple[Location, ast.expr] | None:
    """The value of the latest cell's top-level ``name = ...`` (one plain target)."""
    for place, tree in _history(ctx):
        values = [n.value for n in tree.body if isinstance(n, ast.Assign)
                  and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                  and n.targets[0].id == name]
        if values:
            return place, values[-1]
    return None


def made_where(ctx: ErrorContext, name: str) -> tuple[Location, ast.expr] | None:
    """The expression that made the value a notebook global ``name`` holds, where it is
    made and nowhere else read: the latest cell's top-level ``name = expr``, or through the
    one call of a function of the user's, ``a, name = f(x)`` (``name = f(x)``), the value
    ``f`` returns in that place (a local assigned once in its body and read only by the
    ``return``, or the returned expression itself). None where ``name`` or ``f`` is used in
    any other cell, or ``name`` is read again in its own cell: a lasting fix there would
    change what those uses see."""
    for place, tree in _history(ctx):
        bound = [node for node in tree.body if isinstance(node, ast.Assign)
                 and len(node.targets) == 1
                 and name in {n.id for n in ast.walk(node.targets[0])
                              if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}]
        if not bound:
            continue
        assignment = bound[-1]
        loads = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name
                 and isinstance(n.ctx, ast.Load) and n.lineno > assignment.lineno]
        mentioned = ctx.cells_mentioning(name)
        failing = ctx.failing_cell()
        if loads or mentioned is None or failing is None \
                or set(mentioned) - {place.cell, failing.cell}:
            return None
        target, value = assignment.targets[0], assignment.value
        if isinstance(target, ast.Name):
            index = None
        elif isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
            index = [e.id for e in target.elts].index(name)  # type: ignore[attr-defined]
        else:
            return None
        if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Name):
            return (place, value) if index is None else None
        return _returned(ctx, place, value.func.id, index, len(getattr(target, "elts", ())))
    return None


def _returned(ctx: ErrorContext, called_from: Location, function: str, index: int | None,
              count: int) -> tuple[Location, ast.expr] | None:
    """What the user's ``function`` returns at ``index`` of its tuple (the whole value for
    None), where it is made in the function, if the function is called only there."""
    found = latest_top_level(ctx, ast.FunctionDef, function)
    mentioned = ctx.cells_mentioning(function)
    if found is None or mentioned is None:
        return None
    place, definition = found
    if set(mentioned) - {place.cell, called_from.cell}:
        return None
    returned = _scopes.one_return(definition)
    if returned is None or not isinstance(definition.body[-1], ast.Return):
        return None
    if index is not None:
        if not isinstance(returned, ast.Tuple) or len(returned.elts) != count:
            return None
        returned = returned.elts[index]
    if not isinstance(returned, ast.Name):
        return place, returned
    assigned = _scopes.assigned_once(definition, returned.id)
    if assigned is None or assigned not in definition.body \
            or len(_scopes.loads(definition, returned.id)) != 1:
        return None
    return place, assigned.value


def find_site(ctx: ErrorContext, call: ast.Call, caller: Location) -> JitSite | None:
    """The jitted function ``call`` calls and its static options."""
    cells = _history(ctx)
    func = call.func
    if isinstance(func, ast.Call) and _tracing.is_jit(func.func) and func.args \
            and isinstance(func.args[0], ast.Name):  # jax.jit(f, ...)(...)
        function = func.args[0].id
        found = _latest(cells, ast.FunctionDef, function)
        if found is None:
            return None
        return _site(found[1], function, func, replace(caller, line=""))
    if not isinstance(func, ast.Name) or not (ctx.type_of(func.id) or "").endswith(_JITTED):
        return None
    qualified = ctx.object_names.get(func.id, "")
    function = qualified.rpartition(".")[2]
    if not function.isidentifier():
        return None
    found = _latest(cells, ast.FunctionDef, function)
    if found is None:
        return None
    place, definition = found
    if func.id == function:  # a decorated def
        options = next((o for d in definition.decorator_list
                        if (o := _jit_options(d)) is not None), None)
        lineno = min([definition.lineno, *(d.lineno for d in definition.decorator_list)])
        return _site(definition, function, options, replace(place, lineno=lineno, line=""))
    for cell, tree in cells:  # `alias = jax.jit(function, ...)`
        for node in tree.body:
            if (isinstance(node, ast.Assign) and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name) and node.targets[0].id == func.id
                    and isinstance(node.value, ast.Call) and _tracing.is_jit(node.value.func)
                    and node.value.args
                    and _tracing.names_function(node.value.args[0], function)):
                return _site(definition, function, node.value,
                             replace(cell, lineno=node.value.lineno, line=""))
    return None


def sites_on_line(ctx: ErrorContext, caller: Location) -> list[tuple[ast.Call, JitSite, str]]:
    """Each call on the caller's line of a jitted function whose jit site is found, with
    that site and the line's code: the calls a static argument can have been passed to."""
    parsed = _tracing.parse(caller.source)
    if parsed is None:
        return []
    tree, code = parsed
    found = []
    for call in [n for n in ast.walk(tree) if isinstance(n, ast.Call)
                 and n.lineno <= caller.lineno <= (n.end_lineno or n.lineno)]:
        site = find_site(ctx, call, caller)
        if site is not None:
            found.append((call, site, code))
    return found
