"""The user's call as the explained card's contract rules read it: the call on the card's
line, and what it writes for a parameter of the JAX function it calls (bound by that
function's signature). Shared by ``_contract`` and the rule modules it asks."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Any

from jax_nbhelp.catalog import _tracing
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis import user_call as _user_call
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.safe_eval import CANNOT, Evaluator
from jax_nbhelp.fix.fix_builders import rewrite_fix

_SIMPLE = (ast.Name, ast.Attribute, ast.Subscript, ast.Call)  # `x.astype` needs no parentheses


def plain_call(ctx: ErrorContext, diagnosis: Diagnosis
               ) -> tuple[_user_call.UserCall, Location, ast.Call] | None:
    """The user's call on the card's line, where it is a plain call of a function (not a
    method, not an operator) whose callee is known."""
    call = ctx.user_call
    location = diagnosis.location
    if call is None or location is None or call.location != location \
            or not isinstance(call.node, ast.Call) or call.function is None \
            or call.method_of is not None:
        return None
    return call, location, call.node


def given(call: _user_call.UserCall, parameter: str) -> ast.expr | None:
    """What the user's call writes for ``parameter`` (bound by JAX's signature); None where
    it passes nothing written there (a default, an item of ``*args``)."""
    bound = _user_call.bind(call)[1]
    argument = bound.arguments.get(parameter) if bound is not None else None
    return argument.node if isinstance(argument, _user_call.Argument) else None


def value_of(call: _user_call.UserCall, node: ast.expr,
             evaluate: Evaluator | None = None) -> object:
    """What the call's argument ``node`` held: read safely in the user's frame, else as the
    JAX function received it (``jnp.eye(2) * 2`` is not read); CANNOT where neither."""
    value = (evaluate or Evaluator(call.frame))(node)
    return _user_call.received(call, node) if value is CANNOT else value


def array_dtype(value: object) -> Any:
    """The dtype of a NumPy or JAX array (a tracer included), read from NumPy's or JAX's
    own class, never a user's property; None for anything else."""
    module = (type(value).__module__ or "").split(".", 1)[0]
    if module not in ("numpy", "jax", "jaxlib") or getattr(type(value), "dtype", None) is None:
        return None
    try:
        return value.dtype  # type: ignore[attr-defined]  # NumPy's or JAX's own array
    except Exception:
        return None


def received(ctx: ErrorContext, function: str) -> dict[str, object] | None:
    """The locals of JAX's own frame of ``function`` (the outermost one in the traceback):
    the arguments as JAX received them, expressions on the user's line evaluated. None
    where the traceback has no such frame or its frame is gone."""
    entry = next((f for f in ctx.top.frames if f.function == function and not f.is_user),
                 None)
    live = ctx.live_frame_of(entry) if entry is not None else None
    return dict(live.f_locals) if live is not None else None


def rewritten(ctx: ErrorContext, location: Location | None,
              edits: Sequence[tuple[ast.expr, str]], *, label: str, why: str, safety: str
              ) -> Fix | None:
    """The safe fix that writes, for each ``(node, after)`` of ``edits`` (a node of
    ``location``'s line, as the line alone parses or as its cell does), ``after`` with
    ``{}`` standing for the node's own text (parenthesized where it is not a name, an
    attribute, a subscript or a call). None where a node is not found exactly once in the
    statement that starts on the line."""
    parsed = _tracing.parse(location.source) if location is not None else None
    if location is None or parsed is None or not edits:
        return None
    tree, code = parsed
    last = _tracing.statement_end(tree, location.lineno)  # all of the statement's lines
    on_line = [n for n in ast.walk(tree) if isinstance(n, ast.expr)
               and location.lineno <= getattr(n, "lineno", 0)
               and getattr(n, "end_lineno", last + 1) <= last]
    changes: list[tuple[ast.AST, str, str]] = []
    for node, after in edits:
        # the argument as the cell's own parse has it (the call was parsed from its line alone)
        same = [n for n in on_line if ast.dump(n) == ast.dump(node)]
        if len(same) != 1:
            return None
        before = _tracing.segment(code, same[0])
        changes.append((same[0], before,
                        after.format(before if isinstance(same[0], _SIMPLE) else f"({before})")))
    what = " and ".join(f"`{after}` for `{before}`" for _, before, after in changes)
    return rewrite_fix(
        ctx, location, _tracing.replacing_each(changes), label=label,
        summary=f"Write {what} on line {location.lineno}: {why}; then re-run.",
        safety=safety, safe=True)
