"""The static_argnames fix shared by JNH301-JNH303: find where jit wraps the traced function
(its decorator, ``g = jax.jit(f)`` in any cell, or ``jax.jit(f)(...)`` on the calling line)
and add the traced parameters to ``static_argnames`` there.

Offered only when every traced value is a whole parameter of a function traced for jit and
the call passes a Python setting (bool, int, str, None) for it (or a Python float, where the
line needs the value itself: ``range(int(1 / dt))``, ``jnp.arange(0, stop, 0.5)``): then jit
hands the same value to the code, which computes what the code says. An array cannot be
static (jit hashes static values: "Non-hashable static arguments are not supported"); where
the call passes a global name whose live value is an integer array (a count or a shape held
in an array), the fix also passes its Python value at the call (``int(n)``,
``tuple(n.tolist())``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import replace

from jax_nbhelp.catalog import _static_site, _tracing
from jax_nbhelp.core.model import Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.diagnosis.safe_eval import Evaluator
from jax_nbhelp.fix.fix_builders import refused_fix, rewrite_fix


def _assigned_jit(tree: ast.Module, target: str, function: str) -> list[int]:
    """Lines of ``target = jit(function, ...)`` in ``tree``."""
    lines = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == target
                and isinstance(node.value, ast.Call) and _tracing.is_jit(node.value.func)
                and node.value.args and _tracing.names_function(node.value.args[0], function)):
            lines.append(node.value.lineno)
    return lines


def jit_site(ctx: ErrorContext, call: _tracing.JitCall) -> tuple[Location, int] | str:
    """Where ``jit`` is applied to the traced function (a location and line), or why not."""
    origin = call.origin
    definition = call.definition
    parsed_def = _tracing.parse(definition.source) if definition is not None else None
    func = _tracing.find_def(parsed_def[0], origin.function, origin.lineno) if parsed_def else None
    if definition is not None and func is not None and origin.lineno is not None \
            and any(_tracing.jits(d) for d in func.decorator_list):
        return replace(definition, lineno=origin.lineno), origin.lineno
    caller = call.caller
    callee = call.callee or ""
    if caller is not None and "(" in callee:  # jax.jit(f)(...) on the calling line
        return caller, caller.lineno
    if callee.isidentifier() and callee != origin.function:
        # Where `callee = jax.jit(function)` ran: the def's cell, the calling cell, or the
        # latest other cell of the history that assigns it.
        history = [ctx.cell(number) for number in sorted(ctx.cell_sources, reverse=True)]
        for place in (definition, caller, *history):
            parsed = _tracing.parse(place.source) if place is not None else None
            if place is None or parsed is None:
                continue
            lines = _assigned_jit(parsed[0], callee, origin.function)
            if len(lines) == 1:
                return replace(place, lineno=lines[0], line=""), lines[0]
            if lines:
                break
    return (f"jax_nbhelp could not find where jax.jit is applied to {origin.function}; "
            f"add static_argnames there")


def can_be_static(call: _tracing.JitCall, floats: bool = False) -> bool:
    """The traced values are whole parameters of a jitted function, passed Python settings
    (with ``floats``: or Python floats, where the line needs the value itself, a count or a
    size computed from it: a float hashes, and jit hands it to the code as it is)."""
    kinds = call.kinds()
    allowed = {"python", "scalar"} if floats else {"python"}
    return (call.origin.for_jit and call.origin.plain_arguments and bool(call.arguments)
            and kinds <= allowed)


def settings_sentence(call: _tracing.JitCall) -> str:
    """Says the call passes Python settings, which jit can take as they are."""
    many = len(call.arguments) > 1
    return (f" The call passes {call.passed()}: "
            + ("Python values, which jit can take as static settings and hand to your code "
               "as they are." if many else
               "a Python value, which jit can take as a static setting and hand to your code "
               "as it is."))


def inside(ctx: ErrorContext, origin: _tracing.TraceOrigin,
           call: _tracing.JitCall, floats: bool = False) -> tuple[str, tuple[Fix, ...]]:
    """How a cause goes on after what its line needs (", but inside scale (traced for jit)
    the value depends on `n`."), and the fix: where the call passes Python settings, the
    sentence says so and the fix marks them static; otherwise no fix (the entry says why)."""
    said = f", but inside {_tracing.traced_in(origin)} {_tracing.depends_on(origin)}."
    if can_be_static(call, floats):
        return said + settings_sentence(call), (static_argnames_fix(ctx, call),)
    return said, ()


def unhashable_sentence(call: _tracing.JitCall) -> str:
    """Says why static_argnames is not the answer when the call passes arrays."""
    arrays = [a for a in call.arguments if a.kind == "array"]
    names = _tracing.quoted([a.parameter for a in arrays])
    are = _tracing.plural(len(arrays), "is an array", "are arrays")
    them = _tracing.plural(len(arrays), "it", "them")
    return (f" The call passes {call.passed()}, and {names} {are}: marking {them} static "
            "would fail with \"Non-hashable static arguments are not supported\", because "
            "jit looks static values up by hash.")


# where a value must be a Python number: keywords and positions of JAX's calls
_SIZE_KEYWORDS = frozenset({"shape", "num", "length", "size", "axis", "num_segments",
                            "total_repeat_length", "newshape", "repeats"})
_SHAPE_FIRST = frozenset({"zeros", "ones", "empty", "full", "eye", "identity", "arange",
                          "tri", "range", "int"})
_DEPTH = 2  # functions followed into, from the jitted one


def needs_value(ctx: ErrorContext, func: ast.FunctionDef, name: str) -> bool:
    """Whether ``func`` uses its parameter ``name`` where a Python number is needed, in
    itself or the notebook's functions it passes it to (``_DEPTH`` calls deep)."""
    return _needs_value(_static_site.latest_functions(ctx), func, name, _DEPTH)


def _needs_value(functions: dict[str, ast.FunctionDef], func: ast.FunctionDef, name: str,
                 depth: int) -> bool:
    """Whether ``func`` uses its parameter ``name`` where a Python number is needed: a
    size, a shape or a count of a JAX call, ``range``/``int``, a slice bound, an ``if``; or
    passes it to a function of the notebook's (``functions``: each name's latest top-level
    ``def``) that does (``depth`` calls deep)."""
    def named(node: ast.AST | None) -> bool:
        return isinstance(node, ast.Name) and node.id == name

    for node in ast.walk(func):
        if isinstance(node, ast.If | ast.While) and any(named(n) for n in ast.walk(node.test)):
            return True
        if isinstance(node, ast.Slice) and any(named(n) for part in (node.lower, node.upper,
                                                                     node.step)
                                               if part is not None for n in ast.walk(part)):
            return True
        if not isinstance(node, ast.Call):
            continue
        callee = (dotted(node.func) or "").rsplit(".", 1)[-1]
        args = list(node.args)
        if any(k.arg in _SIZE_KEYWORDS and any(named(n) for n in ast.walk(k.value))
               for k in node.keywords):
            return True
        if (callee in _SHAPE_FIRST and args and any(named(n) for n in ast.walk(args[0]))) \
                or (callee == "linspace" and len(args) > 2 and named(args[2])) \
                or (callee == "reshape" and any(named(n) for a in args for n in ast.walk(a))):
            return True
        if depth and isinstance(node.func, ast.Name):
            inner = functions.get(node.func.id)
            if inner is None:
                continue
            params = [a.arg for a in inner.args.args]
            passed = [params[i] for i, a in enumerate(args[:len(params)]) if named(a)] + [
                k.arg for k in node.keywords if k.arg in params and named(k.value)]
            if any(_needs_value(functions, inner, p, depth - 1) for p in passed):
                return True
    return False


def _companions(ctx: ErrorContext, call: _tracing.JitCall) -> list[str]:
    """The jitted function's other parameters that the call passes a Python setting (an
    int, bool or str, written or held by a name) and that the function uses where a Python
    number is needed: made static with the traced ones, so that jit does not stop at the
    next of them (the fix would run into it)."""
    definition, caller = call.definition, call.caller
    parsed = _tracing.parse(definition.source) if definition is not None else None
    func = _tracing.find_def(parsed[0], call.origin.function, call.origin.lineno) \
        if parsed is not None else None
    called = _tracing.parse(caller.source) if caller is not None else None
    frame = ctx.live_frame(caller) if caller is not None else None
    if func is None or called is None or caller is None or frame is None \
            or func.args.vararg or func.args.kwarg:
        return []
    callee = (call.callee or "").split("(", 1)[0]
    nodes = [n for n in ast.walk(called[0]) if isinstance(n, ast.Call)
             and n.lineno <= caller.lineno <= (n.end_lineno or 0)
             and ast.unparse(n.func) == callee]
    if len(nodes) != 1 or any(isinstance(a, ast.Starred) for a in nodes[0].args):
        return []
    params = [a.arg for a in func.args.args]
    given = dict(zip(params, nodes[0].args, strict=False))
    given.update({k.arg: k.value for k in nodes[0].keywords if k.arg in params})
    evaluate = Evaluator(frame)
    functions = _static_site.latest_functions(ctx)
    found = []
    for name, node in given.items():
        if name in call.origin.arguments:
            continue
        value = evaluate(node)
        if type(value) in (int, bool, str) and _needs_value(functions, func, name, _DEPTH):
            found.append(name)
    return found


def static_argnames_fix(ctx: ErrorContext, call: _tracing.JitCall) -> Fix:
    """Add the traced parameters to ``static_argnames`` where ``jit`` wraps the function,
    with the companions (``_companions``) the call passes Python settings for."""
    companions = _companions(ctx, call)
    if companions:
        call = replace(call, origin=replace(
            call.origin, arguments=(*call.origin.arguments, *companions)))
    names = list(call.origin.arguments)
    function = "the lambda" if call.origin.function == _tracing.LAMBDA else call.origin.function
    shown = _tracing.quoted(names)
    label = f"Make {shown} static"
    values = _tracing.plural(len(names), "a Python value", "Python values")
    summary = (f"Add static_argnames={tuple(names)!r} where jax.jit wraps {function}, so "
               f"jit passes {shown} through as {values}.")
    passed = _tracing.plural(len(names), "value", "values")
    subject = "The lambda" if function == "the lambda" else function
    safety = (
        f"Same values: {subject} runs as written, with the Python {passed} the call passes."
        f" jit compiles {function} again for each new value of {shown}; a "
        "call passing an array there would fail (\"Non-hashable static arguments\")."
    )
    rewrite = _static_rewrite(ctx, call)
    if isinstance(rewrite, str):
        return refused_fix(label, summary, safety, rewrite)
    location, transform = rewrite
    if "static_argnums" in (location.line or ""):  # jit then reads names only as given
        where = "its position" if len(names) == 1 else "their positions"
        summary = (f"Add {where} to the static_argnums where jax.jit wraps {function}, so "
                   f"jit passes {shown} through as {values}.")
    return rewrite_fix(ctx, location, transform, label=label, summary=summary,
                       safety=safety, safe=True)


def _static_rewrite(ctx: ErrorContext,
                    call: _tracing.JitCall) -> tuple[Location, Callable[[str], str]] | str:
    """Where jit wraps the traced function and the rewrite that adds its traced parameters
    to static_argnames there, or why it cannot."""
    from jax_nbhelp.jaxapi import jax_probe

    site = jit_site(ctx, call)
    if isinstance(site, str):
        return site
    location, lineno = site
    takes_options = jax_probe.jit_accepts_options_alone()
    partial: str | None = None
    if not takes_options:
        functools = ctx.alias("functools")
        bound = ctx.names_for("functools.partial")
        partial = f"{functools}.partial" if functools else (bound[0] if bound else None)
    function, names = call.origin.function, list(call.origin.arguments)

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite import add_static_argnames

        return add_static_argnames(source, lineno, function, names, partial, takes_options)

    return location, transform


def python_value(ctx: ErrorContext, location: Location, name: str) -> str | None:
    """``int(n)``, ``bool(n)`` or ``tuple(n.tolist())``: the Python value of the integer
    array ``name`` held at ``location`` (a 0-d array or a 1-D one, as the line's live values
    show), which jit can hash; None for anything else."""
    held = next((v for v in ctx.values_at(location) if v.text == name), None)
    if held is None or held.dtype is None or held.kind not in ("array", "numpy"):
        return None
    if held.dtype == "bool" and held.shape == ():
        return f"bool({name})"
    if not held.dtype.startswith(("int", "uint")):
        return None
    if held.shape == ():
        return f"int({name})"
    return f"tuple({name}.tolist())" if held.shape is not None and len(held.shape) == 1 else None


def replace_argument(source: str, node: ast.expr, old: str, new: str) -> str:
    """``source`` with the expression ``node`` (spelled ``old``, on one line) made ``new``."""
    from jax_nbhelp.rewrite import CannotRewrite

    lines = source.splitlines(keepends=True)
    index = node.lineno - 1
    if node.end_lineno != node.lineno or not 0 <= index < len(lines):
        raise CannotRewrite("the argument spans several lines")
    raw = lines[index].encode()
    start, end = node.col_offset, node.end_col_offset or node.col_offset
    if raw[start:end].decode() != old:
        raise CannotRewrite("the calling line is not plain Python jax_nbhelp can edit")
    lines[index] = (raw[:start] + new.encode() + raw[end:]).decode()
    return "".join(lines)


def held_in_array(ctx: ErrorContext, call: _tracing.JitCall) -> tuple[str, tuple[Fix, ...]]:
    """How a cause goes on after ``unhashable_sentence`` when the arrays the call passes
    hold integers, and the fix that passes their Python values (``python_values_fix``);
    ("", ()) otherwise."""
    fix = python_values_fix(ctx, call)
    if fix is None:
        return "", ()
    return (" The array holds integers, though: passed as the Python value it holds, it can "
            "be static."), (fix,)


def python_values_fix(ctx: ErrorContext, call: _tracing.JitCall) -> Fix | None:
    """For a call that passes arrays where the function needs settings: static_argnames for
    the traced parameters, and the call passing each array as the Python value it holds
    (``python_value``). None unless every array passed is a global name whose live value
    is integers and every other argument is a Python setting."""
    caller = call.caller
    if not (call.origin.for_jit and call.origin.plain_arguments and call.module_level
            and call.any_array and caller is not None):
        return None
    passed: list[tuple[ast.expr, str, str]] = []
    for argument in call.arguments:
        if argument.kind == "python":
            continue
        node, expression = argument.node, argument.expression
        if argument.kind != "array" or not isinstance(node, ast.Name) or expression is None:
            return None
        value = python_value(ctx, caller, expression)
        if value is None:
            return None
        passed.append((node, expression, value))
    rewrite = _static_rewrite(ctx, call)
    if isinstance(rewrite, str):
        return None
    names = list(call.origin.arguments)
    shown, values = _tracing.quoted(names), _tracing.quoted([v for *_, v in passed])
    function = call.origin.function

    def convert(source: str) -> str:
        for node, expression, value in passed:
            source = replace_argument(source, node, expression, value)
        return source

    return rewrite_fix(
        ctx, caller, convert, also=(rewrite,),
        label=f"Make {shown} static, pass {values}",
        summary=(f"Add static_argnames={tuple(names)!r} where jax.jit wraps {function}, and "
                 f"pass {values} at the call: Python values, which jit can hash and hand to "
                 "your code as they are."),
        safety=(f"Same values: {_tracing.quoted([e for _, e, _ in passed])} "
                f"{_tracing.plural(len(passed), 'holds', 'hold')} integers (the calling "
                f"line's live values show them), and {values} "
                f"{_tracing.plural(len(passed), 'is', 'are')} the same numbers as Python "
                f"values. jit compiles {function} again for each new value of {shown}."),
        safe=True)


def parameter_static_fix(ctx: ErrorContext, function: str, parameter: str,
                         caller: Location) -> Fix | None:
    """static_argnames for ``parameter`` where the notebook jits ``function``."""
    for number in sorted(ctx.cell_sources, reverse=True):
        parsed = _tracing.parse(ctx.cell_sources[number])
        if parsed is None:
            continue
        node = next((n for n in ast.walk(parsed[0]) if isinstance(n, ast.FunctionDef)
                     and n.name == function), None)
        if node is None:
            continue
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        definition = ctx.cell(number, first)
        origin = _tracing.TraceOrigin(function, None, first, "jit", (parameter,))
        argument = _tracing.PassedArgument(parameter, None, "python")
        callee = _tracing.callee_on_line(ctx, caller, function) or function
        call = _tracing.JitCall(origin, definition, caller, callee, (argument,), True)
        return static_argnames_fix(ctx, call)
    return None
