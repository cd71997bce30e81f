"""A function written for one element, handed to a JAX combinator that calls it on a batch
of them.

``lax.associative_scan(fn, elems)`` combines the elements of ``elems`` pairwise, many pairs
at once: it calls ``fn`` on slices of ``elems`` that keep the scanned axis, so ``fn`` sees a
batch of elements where it was written for one (``Ma @ Mb`` of two ``(n, 2, 2)`` stacks is
a batched matrix product only by luck; ``Mb @ ca`` of ``(n, 2, 2)`` and ``(n, 2)`` fails).
JAX's documentation of ``associative_scan`` says it: ``fn`` should be applied elementwise
over the scanned axis, "for example, by using jax.vmap over the elementwise function". Where
a shape error is raised inside the user's ``fn``, called by ``associative_scan`` from the
user's line along its leading axis (the default), that line's ``fn`` is written as
``jax.vmap(fn)``: the function the user wrote, applied to each element of the batch, as the
combinator requires. (Along another axis, which axes of a slice are elements is not read.)

Reports: tensorflow/probability#1812 (an associative function that does not broadcast over
a batch of elements, given to a JAX scan_associative; the answer: ``jax.vmap`` over the
function). The idiom ``lax.associative_scan(jax.vmap(op), elems)`` is the common spelling in
JAX code (parallel Kalman filters, linear recurrences).
"""

from __future__ import annotations

import ast

from jax_nbhelp.catalog import _tracing
from jax_nbhelp.core.model import Fix
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.fix.fix_builders import rewrite_fix

SENTENCE = (" The line runs in the combining function lax.associative_scan calls, which it "
            "calls on batches of elements at once, not on one element.")


def per_element_fix(ctx: ErrorContext) -> Fix | None:
    """``lax.associative_scan(fn, ...)`` on the user's line, where the error was raised in
    the user's ``fn`` that associative_scan called: ``jax.vmap(fn)``."""
    frames = ctx.top.frames
    jax = ctx.alias("jax")
    at = next((i for i, f in enumerate(frames)
               if not f.is_user and f.function == "associative_scan"), None)
    if at is None or jax is None:
        return None
    callers = [f for f in frames[:at] if f.is_user and f.location is not None]
    inside = [f for f in frames[at + 1:] if f.is_user]
    if not callers or not inside:
        return None
    location = callers[-1].location
    assert location is not None
    calls, code = _tracing.calls_named(location, "associative_scan")
    if len(calls) != 1:
        return None
    call = calls[0]
    fn = call.args[0] if call.args else next(
        (k.value for k in call.keywords if k.arg == "fn"), None)
    axis_node = next((k.value for k in call.keywords if k.arg == "axis"), None)
    if fn is None or not isinstance(fn, ast.Name | ast.Attribute | ast.Lambda) \
            or not _tracing.names_function(fn, inside[0].function):
        return None
    if axis_node is not None and not (isinstance(axis_node, ast.Constant)
                                      and axis_node.value == 0):
        return None
    before = _tracing.segment(code, fn)
    after = f"{jax}.vmap({before})"
    return rewrite_fix(
        ctx, location, _tracing.replacing(fn, before, after),
        label="Map it over the elements",
        summary=(f"Write `{after}` for `{before}` in the associative_scan on line "
                 f"{location.lineno}: associative_scan calls it on batches of elements, and "
                 "vmap applies it to each; then re-run."),
        safety=(f"Same operation on each element: `{before}` as written, applied to every "
                "element of the batches associative_scan combines, as its documentation asks "
                "of the combining function."),
        safe=True)
