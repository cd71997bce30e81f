"""The function the user's call hands to JAX (``lax.while_loop``'s ``cond_fun``, ``fori_loop``'s
``body_fun``): a lambda written on the line, or a ``def`` of the user's, read from its source.

A rule that fixes what such a function returns, or how it is called, reads it here: where its
code is, its node, and the one expression it returns (a lambda's body, or the value of a
``def``'s only ``return``).
"""

from __future__ import annotations

import ast
import types
from dataclasses import dataclass

from jax_nbhelp.catalog import _entry, _scopes, _tracing
from jax_nbhelp.core.model import Location
from jax_nbhelp.diagnosis import user_call as _user_call
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.safe_eval import CANNOT


@dataclass(frozen=True)
class Passed:
    location: Location  # the line of the lambda, or of the ``def``
    code: str  # the source that location's cell or file holds, as parsed
    node: ast.Lambda | ast.FunctionDef
    returned: ast.expr | None  # the lambda's body, or the value of the def's one return
    name: str  # "the lambda", or the function's name

    @property
    def parameters(self) -> list[str]:
        """Its positional parameters' names (no ``*args``: then the list says nothing)."""
        arguments = self.node.args
        return [a.arg for a in (*arguments.posonlyargs, *arguments.args)]

    @property
    def takes_any(self) -> bool:
        """Whether it takes ``*args``, or keyword-only parameters without defaults."""
        arguments = self.node.args
        return arguments.vararg is not None or any(
            default is None for default in arguments.kw_defaults)


def passed_function(ctx: ErrorContext, parameter: str) -> Passed | None:
    """The user's function given for ``parameter`` of the JAX function the user's line
    called; None where it is neither a lambda on that line nor a ``def`` of the user's."""
    call = ctx.user_call
    if call is None or call.location is None:
        return None
    _, bound, _ = _user_call.bind(call)
    given = bound.arguments.get(parameter) if bound is not None else None
    node = getattr(given, "node", None)
    if isinstance(node, ast.Lambda):
        return _lambda(call.location, node)
    if not isinstance(node, ast.Name | ast.Attribute):
        return None
    function = _user_call.received(call, node)
    if function is CANNOT or not isinstance(function, types.FunctionType):
        return None  # only a plain function's code is read: nothing of a user's object runs
    where = _entry.def_location(ctx, function)
    parsed = _tracing.parse(where.source) if where is not None and where.source else None
    if where is None or parsed is None:
        return None
    tree, code = parsed
    definition = _tracing.find_def(tree, getattr(function, "__name__", ""), where.lineno)
    if definition is None:
        return None
    returns = [n for n in _scopes.own_nodes(definition) if isinstance(n, ast.Return)]
    returned = returns[0].value if len(returns) == 1 else None
    return Passed(where, code, definition, returned, definition.name)


def _lambda(location: Location, node: ast.Lambda) -> Passed | None:
    """The lambda ``node`` (as the user's call was read) found in its line's source."""
    parsed = _tracing.parse(location.source) if location.source else None
    if parsed is None:
        return None
    tree, code = parsed
    shape = ast.dump(node)
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)
             and n.lineno <= location.lineno <= (n.end_lineno or 0) and ast.dump(n) == shape]
    if len(found) != 1:
        return None
    return Passed(location, code, found[0], found[0].body, "the lambda")
