"""A range whose bounds are a traced value plus known offsets: ``jnp.arange(peak - 2, peak
+ 3)`` under jit (JNH303's case of ``It arose in the jnp.arange argument 'start'``).

jnp.arange needs concrete bounds, because its length is part of the array's shape. When
both bounds are the same traced value shifted by numbers known before the trace, the length
is known: ``peak + jnp.arange(-2, 3)`` is the same range, with a static length and the
traced value added to each element.

Read from the line without running anything: the call's two or three positional arguments,
the start and stop each the same expression plus or minus a number (a literal, or a name
holding a Python int in the live frame), the step (if any) a literal.

Reports: jax-ml/jax#19433 (a window of indices around a traced value, where the maintainers'
answer was the same range shifted).
"""

from __future__ import annotations

import ast
from dataclasses import replace

from jax_nbhelp.catalog import _provenance, _tracing
from jax_nbhelp.core.model import Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.fix.fix_builders import rewrite_fix


def _split(node: ast.expr, known: dict[str, object]) -> tuple[str, int] | None:
    """``peak - 2`` as (``peak``, -2); ``peak`` as (``peak``, 0); None where the offset is
    not a known int."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub):
        # `peak + 2`, `2 + peak`, `peak - 2` (not `2 - peak`, which runs the other way)
        sides = [(node.left, node.right)] if isinstance(node.op, ast.Sub) else \
            [(node.left, node.right), (node.right, node.left)]
        for base, offset in sides:
            number = _int(offset, known)
            if number is not None and _int(base, known) is None:
                return ast.unparse(base), -number if isinstance(node.op, ast.Sub) else number
        return None
    return (ast.unparse(node), 0) if _int(node, known) is None else None


def _int(node: ast.expr, known: dict[str, object]) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int(node.operand, known)
        return -inner if inner is not None else None
    if isinstance(node, ast.Name) and type(known.get(node.id)) is int:
        return known[node.id]  # type: ignore[return-value]
    return None


def fix(ctx: ErrorContext, location: Location | None) -> Fix | None:
    """``base + jnp.arange(a, b[, step])`` for ``jnp.arange(base + a, base + b[, step])``."""
    parsed = _tracing.parse(location.source) if location is not None else None
    frame = ctx.live_frame(location) if location is not None else None
    jnp = ctx.alias("jax.numpy")
    if location is None or parsed is None or frame is None or jnp is None:
        return None
    calls = [node for node in ast.walk(parsed[0]) if isinstance(node, ast.Call)
             and dotted(node.func) == f"{jnp}.arange" and node.lineno == location.lineno
             and node.end_lineno == node.lineno and 2 <= len(node.args) <= 3
             and not node.keywords]
    if len(calls) != 1:
        return None
    call = calls[0]
    known = {**frame.f_globals, **frame.f_locals}
    start, stop = _split(call.args[0], known), _split(call.args[1], known)
    step = call.args[2] if len(call.args) == 3 else None
    if start is None or stop is None or start[0] != stop[0] \
            or (step is not None and _int(step, {}) is None):
        return None
    base = start[0]
    value = known.get(base) if base.isidentifier() else None
    if not base.isidentifier() or not _provenance.traced(value):
        return None  # only a traced name: its dtype says whether the sum is exact
    exact = str(getattr(value, "dtype", "")).startswith(("int", "uint"))
    bounds = f"{start[1]}, {stop[1]}" + (f", {ast.unparse(step)}" if step is not None else "")
    after = f"{base} + {jnp}.arange({bounds})"
    code = location.source or ""
    before = _tracing.segment(code, call, strip=False)
    made = rewrite_fix(
        ctx, location, _tracing.replacing(call, before, after), label=f"Use {after}"
        if len(after) <= 32 else "Shift a range of known length",
        summary=(f"Write `{after}` for `{before}` on line {location.lineno}: the range's "
                 f"length is known before the trace, and {base} is added to each element; "
                 "then re-run."),
        safety=(f"Same values: `{before}` counts from {base}{start[1]:+d} up to, not "
                f"including, {base}{stop[1]:+d}, and so does {base} plus each of "
                f"`{jnp}.arange({bounds})`"
                + ("." if exact else f", added in {base}'s float type (the last bit of an "
                   "element can round otherwise)."))
        .replace("+0,", ",").replace("+0 ", " "),
        safe=True)
    return replace(made, rounding=not exact)
