"""Which function a user's line is in, and what a name means there: a parameter, a local, a
global. Entries that rewrite an assignment need it: rebinding a parameter does not reach
the caller, and rebinding a global inside a function makes it a local.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

Function = ast.FunctionDef | ast.AsyncFunctionDef


def enclosing_function(tree: ast.Module, lineno: int) -> Function | None:
    """The innermost ``def`` whose body holds ``lineno`` (None at a cell's top level)."""
    best: Function | None = None
    for node in ast.walk(tree):
        if (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.body
                and node.body[0].lineno <= lineno <= (node.end_lineno or 0)
                and (best is None or node.lineno > best.lineno)):
            best = node
    return best


def own_nodes(function: Function | ast.Module) -> list[ast.AST]:
    """The nodes of ``function``'s body (or a cell's), not those of functions or classes
    nested in it."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        found.append(node)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


def one_return(function: Function) -> ast.expr | None:
    """The value of ``function``'s one ``return`` (None where it has more, or none, or a
    bare one)."""
    returns = [node for node in own_nodes(function) if isinstance(node, ast.Return)]
    return returns[0].value if len(returns) == 1 else None


def assigned_once(scope: Function | ast.Module, name: str) -> ast.Assign | None:
    """The one statement of ``scope``'s own body that binds ``name``, where it is a plain
    ``name = ...`` (None where ``name`` is bound anywhere else too, or otherwise)."""
    bound = stores(scope, name)
    if len(bound) != 1:
        return None
    return next((node for node in own_nodes(scope) if isinstance(node, ast.Assign)
                 and len(node.targets) == 1 and node.targets[0] is bound[0]), None)


def stores(scope: Function | ast.Module, name: str) -> list[ast.Name]:
    """Every place ``scope``'s own body binds ``name`` (an assignment's target, a loop's,
    a ``with ... as``, a walrus), as the Name nodes that store it."""
    return [node for node in own_nodes(scope) if isinstance(node, ast.Name)
            and node.id == name and isinstance(node.ctx, ast.Store)]


def loads(scope: Function | ast.Module, name: str) -> list[ast.Name]:
    """Every place ``scope``'s own body reads ``name``."""
    return [node for node in own_nodes(scope) if isinstance(node, ast.Name)
            and node.id == name and isinstance(node.ctx, ast.Load)]


def read_elsewhere(scope: Function | ast.Module, name: str) -> bool:
    """Whether ``name`` is also read or bound inside a function, lambda or class nested in
    ``scope`` (what ``stores`` and ``loads`` do not follow)."""
    own = len(stores(scope, name)) + len(loads(scope, name))
    return own != len([node for node in ast.walk(scope)
                       if isinstance(node, ast.Name) and node.id == name])


def parents(scope: Function | ast.Module) -> dict[ast.AST, ast.AST]:
    """Each of ``scope``'s own nodes, to the node that holds it."""
    found: dict[ast.AST, ast.AST] = {}
    for node in own_nodes(scope):
        for child in ast.iter_child_nodes(node):
            found[child] = node
    for statement in scope.body:
        found[statement] = scope
    return found


@dataclass(frozen=True)
class Scope:
    """What a function's names are."""

    function: Function
    parameters: frozenset[str]
    assigned: frozenset[str]  # bound in its body (locals, unless declared global)
    declared_global: frozenset[str]

    def kind(self, name: str) -> str:
        """"parameter", "local", "global" (declared, or read without being bound)."""
        if name in self.declared_global:
            return "global"
        if name in self.parameters:
            return "parameter"
        return "local" if name in self.assigned else "global"

    def returns(self, name: str) -> bool:
        """Whether a ``return`` of the function hands back ``name`` (in any expression)."""
        return any(isinstance(node, ast.Return) and node.value is not None
                   and any(isinstance(n, ast.Name) and n.id == name
                           for n in ast.walk(node.value))
                   for node in own_nodes(self.function))


def scope_of(function: Function) -> Scope:
    args = function.args
    parameters = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    parameters |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    assigned: set[str] = set()
    declared: set[str] = set()
    for node in own_nodes(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            assigned.add(node.id)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            declared.update(node.names)
    return Scope(function, frozenset(parameters), frozenset(assigned), frozenset(declared))


def root_name(node: ast.expr) -> str | None:
    """``x`` for ``x``, ``x.a``, ``x['k'][0]``; None for other expressions."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def passed_for(caller_source: str | None, caller_line: int, function: Function,
               parameter: str) -> tuple[str, str] | None:
    """What the call of ``function`` on the caller's line passes for ``parameter``, and the
    call, as written (``state`` and ``reset(state)``); None when the line does not say."""
    if caller_source is None:
        return None
    from jax_nbhelp.catalog import _tracing

    parsed = _tracing.parse(caller_source)
    if parsed is None:
        return None
    tree, _ = parsed
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and node.lineno <= caller_line <= (node.end_lineno or 0)
                and _tracing.names_function(node.func, function.name)):
            bound = _tracing.bind_argument(node, function, parameter)
            return (ast.unparse(bound), ast.unparse(node)) if bound is not None else None
    return None
