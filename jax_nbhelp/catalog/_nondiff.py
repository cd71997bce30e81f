"""A call of the user's ``jax.custom_jvp`` or ``jax.custom_vjp`` that passed a traced array
in a position its ``nondiff_argnums`` names, found once for the entry that explains it and
for the entry of escaped tracers, which must leave that error to it.

JAX says so itself for a custom_vjp (``Found a JAX Tracer object passed as an argument to a
custom_vjp function in a position indicated by nondiff_argnums``), at the user's call. For a
custom_jvp it says only that a tracer escaped, and names the line and column where the
escaped value was created: that column is the call of the custom_jvp.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from jax_nbhelp.catalog import _tracing
from jax_nbhelp.core.model import Location
from jax_nbhelp.diagnosis.context import ErrorContext

CUSTOM_JVP = "jax._src.custom_derivatives.custom_jvp"
CUSTOM_VJP = "jax._src.custom_derivatives.custom_vjp"
VJP_MESSAGE = "in a position indicated by nondiff_argnums as non-differentiable"
_CREATED = re.compile(r"created on line (?P<file>\S.*?):(?P<line>\d+)(?::(?P<col>\d+))? "
                      r"\((?P<function>[^)]*)\)")


@dataclass(frozen=True)
class NondiffCall:
    """The call, and what the custom function is."""

    name: str  # how the calling line names the custom function
    function: Any  # the custom_jvp or custom_vjp object (JAX's: its attributes are data)
    kind: str  # "custom_jvp" or "custom_vjp"
    positions: tuple[int, ...]  # its nondiff_argnums
    location: Location | None  # the calling line
    all_arrays: bool  # every argument at those positions is an array (traced or not)


def _kind(function: object) -> str | None:
    qualified = f"{type(function).__module__}.{type(function).__qualname__}"
    return {CUSTOM_JVP: "custom_jvp", CUSTOM_VJP: "custom_vjp"}.get(qualified)


def _positions(function: object) -> tuple[int, ...]:
    found = getattr(function, "nondiff_argnums", ())
    return tuple(n for n in found if type(n) is int) if isinstance(found, tuple) else ()


def array_in_nondiff(ctx: ErrorContext) -> NondiffCall | None:
    """The call that passed a traced array where nondiff_argnums says not differentiable,
    or None where the error is not that."""
    link = _tracing.error_link(ctx, "UnexpectedTracerError")
    if link is None:
        return None
    if VJP_MESSAGE in link.message:
        call = ctx.user_call
        function = call.function if call is not None else None
        kind = _kind(function)
        if call is None or kind is None or not _positions(function):
            # JAX's message says it, but no call of the user's shows which function (an
            # exec'd string, a callback's text): the card says what JAX said, without a fix
            return NondiffCall("a custom_vjp function", None, "custom_vjp", (), None, False)
        positions = _positions(function)
        passed = _passed(call.frames[call.index + 1:], function)
        arrays = passed is not None and len(passed) > max(positions) and all(
            _is_array(passed[p]) for p in positions)
        return NondiffCall(call.spelled, function, kind, positions, call.location, arrays)
    created = _CREATED.search(link.message)
    if created is None:
        return None
    place = ctx.place(created["file"], int(created["line"]))
    parsed = _tracing.parse(place.source) if place is not None else None
    if place is None or parsed is None:
        return None
    tree, _ = parsed
    column = int(created["col"]) if created["col"] else None
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
             and node.lineno == place.lineno and isinstance(node.func, ast.Name)
             and (column is None or node.col_offset == column)]
    customs = dict(ctx.globals_of_type(CUSTOM_JVP))
    found = []
    for node in calls:
        assert isinstance(node.func, ast.Name)
        function = customs.get(node.func.id)
        positions = _positions(function)
        if function is not None and positions and not any(
                isinstance(a, ast.Starred) for a in node.args) \
                and max(positions) < len(node.args):
            arrays = not any(_setting(ctx, node.args[p]) for p in positions)
            found.append(NondiffCall(node.func.id, function, "custom_jvp", positions, place,
                                     arrays))
    return found[0] if len(found) == 1 else None


def _setting(ctx: ErrorContext, node: ast.expr) -> bool:
    """Whether the argument is plainly not an array: a literal, a lambda, or a global whose
    value's class is known and is not an array's."""
    if isinstance(node, ast.Constant | ast.Lambda):
        return True
    kind = ctx.type_of(node.id) if isinstance(node, ast.Name) else None
    return kind is not None and not any(word in kind for word in ("Array", "ndarray"))


def _passed(frames: list[Any], function: object) -> tuple[Any, ...] | None:
    """The arguments JAX's ``__call__`` of ``function`` received (its own frame's
    ``args``, JAX's data)."""
    for frame in frames:
        if frame.f_code.co_name == "__call__" and frame.f_locals.get("self") is function:
            args = frame.f_locals.get("args")
            return args if type(args) is tuple else None
    return None


def _is_array(value: object) -> bool:
    module = (type(value).__module__ or "").split(".", 1)[0]
    return module in ("jax", "jaxlib", "numpy") and hasattr(type(value), "dtype")
