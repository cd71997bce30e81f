"""A matrix product whose inner dimensions differ: ``batch @ weights`` with ``batch`` of
shape ``(4, 5)`` and ``weights`` of shape ``(3, 5)`` (``TypeError: dot_general requires
contracting dimensions to have the same shape, got (5,) and (3,).``).

JAX's message gives two sizes and names no array. The explanation names the operands as
the user wrote them, with their shapes from the live values (tracers carry theirs under
jit): the last dimension of the left one against the first (or second to last) of the right
one. Where transposing one operand is the one way to make them fit, it says so with the
result's shape; no fix, since the product of other dimensions is other math.

Reports: danijar/dreamerv3#32 (``got (1041,) and (1029,)`` running its example),
probml/dynamax#400 (batched emissions into a blocked Gibbs sampler).
"""

from __future__ import annotations

import re

from jax_nbhelp.catalog import _combinators, _entry, _operands, _shapes, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match

CODE = "JNH562"
TITLE = "A matrix product whose inner dimensions differ"
MESSAGE = "dot_general requires contracting dimensions to have the same shape"
# What performs a product on a user's line (``engine.ask``); one JAX made inside another
# function (``jnp.linalg.solve``) is not the user's to explain.
OPERATIONS = frozenset({"@", "matmul", "dot", "vdot", "inner", "tensordot", "einsum",
                        "dot_general", "batch_matmul"})

_MESSAGE_RE = re.compile(r"got (?P<a>\([\d, ]*\)) and (?P<b>\([\d, ]*\))")

EXAMPLES = (
    corrected_cell((JAX_IMPORTS, "batch = jnp.ones((4, 5))\nweights = jnp.ones((3, 5))"),
                   "logits = batch @ weights", "logits = batch @ weights.T", NO_FIX,
                   "logits.shape == (4, 3)"),
    corrected_cell((JAX_IMPORTS, "@jax.jit\ndef layer(x, w):\n    return jnp.tanh(jnp.dot(x, w))"),
                   "h = layer(jnp.ones((2, 3)), jnp.ones((2, 3)))",
                   "h = layer(jnp.ones((2, 3)), jnp.ones((3, 2)))", NO_FIX,
                   "h.shape == (2, 2)"),
    # a combining function written for one element, which associative_scan calls on batches
    corrected_cell((JAX_IMPORTS, "from jax import lax\nMs = jnp.stack([jnp.eye(2) * 2.0] * 3)\n"
                    "cs = jnp.ones((3, 2))\ndef compose(a, b):\n    Ma, ca = a\n    Mb, cb = b\n"
                    "    return Mb @ Ma, Mb @ ca + cb"),
                   "P, q = lax.associative_scan(compose, (Ms, cs))",
                   "P, q = lax.associative_scan(jax.vmap(compose), (Ms, cs))",
                   "Map it over the elements",
                   "q.tolist() == [[1.0, 1.0], [3.0, 3.0], [7.0, 7.0]]"),
)

WHY = _entry.prose("""
A matrix product pairs each row of the left operand with each column of the right one, so
the left operand's last dimension and the right operand's first (for stacks of matrices, its
second to last) must have the same size: (m, k) @ (k, n) gives (m, n).
""")

_PRODUCTS = ("dot_general", "matmul", "dot", "tensordot", "vdot", "inner")


def _fits(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    if not a or not b:
        return True
    inner_b = b[0] if len(b) == 1 else b[-2]
    return a[-1] == inner_b


def _product(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    if len(b) == 1:
        return a[:-1]
    if len(a) == 1:
        return (*b[:-2], b[-1])
    return (*a[:-1], b[-1])


def _transposed(shape: tuple[int, ...]) -> tuple[int, ...]:
    return (*shape[:-2], shape[-1], shape[-2]) if len(shape) >= 2 else shape


MATCH = Match(MESSAGE, "TypeError", _MESSAGE_RE)


def diagnose(ctx: ErrorContext, link: Link, found: re.Match[str]) -> Diagnosis | None:
    location = ctx.deepest_user_location()
    operations = [op for op in (_operands.entered_values(ctx, op)
                                for op in _operands.operations(ctx, location, _PRODUCTS))
                  if len([o for o in op.operands if o.shape is not None]) == 2]
    operation = next((op for op in operations
                      if not _fits(*[o.shape or () for o in op.operands[:2]])), None)
    subject = _tracing.quoted_line(location, "Your code")
    notes: list[str] = []
    if operation is not None:
        left, right = operation.operands[:2]
        a, b = left.shape or (), right.shape or ()
        inner = b[0] if len(b) == 1 else b[-2]
        shown = [o.value.summary if o.value is not None else "?" for o in (left, right)]
        product = ("The matrix product" if operation.spelled == "@"
                   else f"The `{operation.spelled}`")
        at = _entry.at(location) if location is not None else ""
        explanation = (f"{product}{at} multiplies `{left.text}` ({shown[0]}) "
                       f"by `{right.text}` ({shown[1]}): "
                       f"`{left.text}` has {a[-1]} columns, `{right.text}` has {inner} "
                       f"rows, and a matrix product needs them equal.")
        options = []
        if len(b) >= 2 and _fits(a, _transposed(b)):
            options.append((f"{left.text} @ {right.text}.T", _product(a, _transposed(b))))
        if len(a) >= 2 and _fits(_transposed(a), b):
            options.append((f"{left.text}.T @ {right.text}", _product(_transposed(a), b)))
        if options:
            fits = " or ".join(f"`{text}` (result {_shapes.shown(shape)})"
                               for text, shape in options)
            notes.append(f"{fits} would fit, if a transpose is what you meant.")
    else:
        explanation = (f"{subject} computes a matrix product whose inner dimensions differ: "
                       f"{found['a']} against {found['b']}.")
    mapped = _combinators.per_element_fix(ctx)
    if mapped is not None:
        explanation += _combinators.SENTENCE
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.call_site(), notes=notes,
                            fixes=(mapped,) if mapped is not None else (),
                            error=link.summary.splitlines()[0])
