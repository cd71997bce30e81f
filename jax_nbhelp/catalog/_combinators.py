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

**A function written for one example, called on a batch.** ``layer(samples)`` where
``layer``'s ``__call__`` computes ``self.weight @ x + self.bias`` for one input vector and
``samples`` holds 50 of them as columns: the shape error is raised inside the function, at
an operation whose mismatched size (50 against 4) is the size of exactly one axis of the one
array the call passed. That axis is the batch: ``jax.vmap(layer, in_axes=1,
out_axes=1)(samples)`` hands the function one example at a time, as written, and stacks the
results along the axis the examples came in on. Only for a call on the user's line, of
one array argument, that ran the function the error was raised in directly (no JAX
transformation between), where the axis is unique (patrick-kidger/equinox#205, a layer
for one vector given a feature-major matrix; the answer: ``jax.vmap``).
"""

from __future__ import annotations

import ast
import inspect

from jax_nbhelp.catalog import _shapes, _tracing
from jax_nbhelp.core.model import Fix
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.safe_eval import Evaluator
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


def _runs(value: object, code: object) -> bool:
    """Whether calling ``value`` runs ``code`` first: a function, a bound method, or an
    instance whose class defines ``__call__`` with it (read statically: nothing runs)."""
    function = value.__func__ if inspect.ismethod(value) else value
    if inspect.isfunction(function):
        return function.__code__ is code
    call = inspect.getattr_static(type(value), "__call__", None)
    return inspect.isfunction(call) and call.__code__ is code


def per_example_fix(ctx: ErrorContext, sizes: tuple[int, int]) -> Fix | None:
    """``f(batch)`` on the user's line, where the shape error (its mismatched ``sizes``) was
    raised inside ``f`` called straight from that line, and exactly one axis of ``batch``
    has one of those sizes: ``jax.vmap(f, in_axes=k, out_axes=k)(batch)``."""
    jax = ctx.alias("jax")
    frames = ctx.top.frames
    users = [i for i, f in enumerate(frames) if f.is_user]
    if jax is None or len(users) < 2:
        return None
    outer, inner = frames[users[-2]], frames[users[-1]]
    if users[-1] != users[-2] + 1 or outer.location is None or outer.location.kind != "cell":
        return None  # a JAX transformation (or anything else) between the two
    caller, callee = ctx.live_frame_of(outer), ctx.live_frame_of(inner)
    if caller is None or callee is None:
        return None
    location = outer.location
    calls, code = _tracing.calls_on(location)
    evaluate = Evaluator(caller)
    found = [call for call in calls
             if isinstance(call.func, ast.Name | ast.Attribute)
             and _runs(evaluate(call.func), callee.f_code)]
    if len(found) != 1 or len(found[0].args) != 1 or found[0].keywords \
            or isinstance(found[0].args[0], ast.Starred):
        return None
    call, argument = found[0], found[0].args[0]
    shape = _shapes.array_shape(evaluate(argument))
    axes = [axis for axis, size in enumerate(shape or ()) if size in sizes]
    if shape is None or len(shape) < 2 or len(axes) != 1:
        return None
    axis = axes[0]
    function = _tracing.segment(code, call.func)
    passed = _tracing.segment(code, argument)
    before = _tracing.segment(code, call)
    options = f", in_axes={axis}, out_axes={axis}" if axis else ""
    after = f"{jax}.vmap({function}{options})({passed})"
    count = shape[axis]
    return rewrite_fix(
        ctx, location, _tracing.replacing(call, before, after),
        label=f"Map {function} over axis {axis} of {passed}",
        summary=(f"Write `{after}` on line {location.lineno}: {function} is written for one "
                 f"example, and vmap hands it the {count} slices along axis {axis} one at a "
                 "time; then re-run."),
        safety=(f"Same function on each example: {function} as written, applied to each "
                f"of the {count} slices of {passed} along axis {axis}, the results stacked "
                "along that axis where the examples were."),
        safe=True)
