"""Keyword arguments a transformed function's call passes where the transformation counts
positions: ``jax.grad(f)(x=3.0)`` (``argnums`` counts positional arguments only),
``jax.vmap(f, in_axes=(0, None))(xs, scale=2.0)`` (``in_axes`` has one entry per positional
argument; keywords are mapped along axis 0). Where the keywords are exactly the function's
parameters after the positional ones, passing them by position, in the function's order,
gives it the same arguments, and the transformation then counts them.
"""

from __future__ import annotations

import ast
import functools
import inspect
from types import FunctionType

from jax_nbhelp.catalog import _tracing
from jax_nbhelp.core.model import Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.safe_eval import Evaluator
from jax_nbhelp.fix.fix_builders import rewrite_fix


def keywords_by_position(ctx: ErrorContext, location: Location, applied: ast.Call,
                         code: str) -> tuple[str, str, list[str]] | None:
    """(the call as written, the call with its keywords passed by position, their names)
    for ``applied``, a call of a transformation's result (``jax.grad(f)(...)``) whose
    function is the transformation's first argument, or of a name that holds a transformed
    function or a ``functools.partial`` of one (``partial(jax.grad(f), k=3.0)(x=1.5)``);
    None where the keywords are not the
    function's next parameters (a later one, a keyword-only one), or nothing can be read."""
    transform = applied.func
    named = isinstance(transform, ast.Name | ast.Attribute)
    if not (named or (isinstance(transform, ast.Call) and transform.args)) \
            or any(isinstance(a, ast.Starred) for a in applied.args) \
            or any(k.arg is None for k in applied.keywords) or not applied.keywords \
            or applied.lineno != applied.end_lineno:
        return None
    frame = ctx.live_frame(location)
    if frame is None:
        return None
    function = Evaluator(frame)(
        transform if named or not isinstance(transform, ast.Call) else transform.args[0])
    if not isinstance(function, FunctionType | functools.partial):
        return None  # a function's or a partial's signature is read without running code
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return None
    names = [k.arg for k in applied.keywords if k.arg is not None]
    after = by_position(code, applied, parameters, set(names))
    return None if after is None else (_tracing.segment(code, applied), after, names)


def by_position(code: str, call: ast.Call, parameters: list[inspect.Parameter],
                names: set[str]) -> str | None:
    """``call`` (from ``code``) written with its keywords ``names`` passed by position, in
    the order of ``parameters`` (the callee's signature), its other keywords kept; None where
    ``names`` are not the parameters right after the call's positional arguments, or one of
    them is keyword-only."""
    given = {k.arg: k.value for k in call.keywords if k.arg is not None}
    following = parameters[len(call.args):len(call.args) + len(names)]
    if {p.name for p in following} != names or not names <= set(given) or any(
            p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in following):
        return None
    arguments = [_tracing.segment(code, a) for a in call.args] + [
        _tracing.segment(code, given[p.name]) for p in following] + [
        f"{k.arg}={_tracing.segment(code, k.value)}" if k.arg is not None
        else f"**{_tracing.segment(code, k.value)}"
        for k in call.keywords if k.arg not in names]
    return f"{_tracing.segment(code, call.func)}({', '.join(arguments)})"


def keywords_fix(ctx: ErrorContext, location: Location, applied: ast.Call, code: str, *,
                 safety: str, purpose: str | None = None) -> Fix | None:
    """The fix that passes the call's keywords by position (``keywords_by_position``), for
    ``purpose`` ("so that in_axes has one entry for each argument")."""
    moved = keywords_by_position(ctx, location, applied, code)
    if moved is None:
        return None
    before, after, names = moved
    return rewrite_fix(
        ctx, location, _tracing.replacing(applied, before, after),
        label="Pass the arguments by position",
        summary=(f"Pass {', '.join(names)} by position on line {location.lineno}, in the "
                 f"function's order{f', {purpose}' if purpose else ''}: `{after}`; then "
                 "re-run."),
        safety=safety, safe=True)
