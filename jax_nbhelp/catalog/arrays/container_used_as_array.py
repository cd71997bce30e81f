"""An array's attribute asked of a list, tuple or dict of JAX arrays (``AttributeError:
'list' object has no attribute 'mean'`` from ``losses.mean()`` after ``losses.append(loss)``
in a loop; ``'list' object has no attribute 'shape'`` where a jitted function was handed a
Python list, which jit takes as a list of separate arrays).

A Python list of arrays is not an array: NumPy's ``np.mean(list)`` converts it, but the list
itself has no ``mean``, ``shape`` or ``reshape``. Python raises the error at the attribute
lookup and records the container; its leaves are JAX arrays or tracers, so it counts as
JAX's (``provenance``).

Where the container is a list or tuple of arrays of one shape, ``jnp.stack(xs)`` is the
array it lists (its first axis the list's order): the attribute is asked of that, as NumPy
would have converted it. A dict, or arrays of different shapes, are explained: which array
was meant is the user's to say. Where a jitted function was handed the list, the lasting fix
is where the list is made (``jnp.asarray`` there): the card says so.

Reports: jax-ml/jax#4837 (``jnp.mean`` over a list of gradient arrays: convert with
``jnp.stack`` or ``jnp.asarray``), jax-ml/jax#365 (jax.numpy refuses Python lists where
NumPy converts them), google/flax#5039 (a list of same-length vectors to stack into one
array).
"""

from __future__ import annotations

import ast

from jax_nbhelp.catalog import _entry, _jax_names, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.provenance import CONTAINER_LACKS, is_jax_array, pytree_of_arrays
from jax_nbhelp.diagnosis.safe_eval import Evaluator
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH546"
TITLE = "A list of JAX arrays used as an array"
TRIGGERS = ("object has no attribute", "indices must be integers or slices, not tuple")

_LOSSES = "losses = []\nfor step in range(3):\n    losses.append(jnp.array(float(step)))"

EXAMPLES = (
    # a list a loop appended scalars to, asked for its mean
    corrected_cell((JAX_IMPORTS, _LOSSES), "average = losses.mean()",
                   "average = jnp.stack(losses).mean()", "Use jnp.stack(losses)",
                   "float(average) == 1.0"),
    # a list of vectors of one shape, asked for its shape
    corrected_cell((JAX_IMPORTS, "rows = [jnp.ones(3), jnp.zeros(3)]"), "n = rows.shape[0]",
                   "n = jnp.stack(rows).shape[0]", "Use jnp.stack(rows)", "n == 2"),
    # a dict of arrays: which one was meant is the user's to say
    corrected_cell((JAX_IMPORTS, "grads = {'w': jnp.ones(3), 'b': jnp.ones(())}"),
                   "total = grads.sum()", "total = sum(g.sum() for g in grads.values())",
                   NO_FIX, "float(total) == 4.0"),
    # a list indexed with two axes
    corrected_cell((JAX_IMPORTS, "rows = [jnp.arange(3.0), jnp.ones(3)]"),
                   "first = rows[:, 0]", "first = jnp.stack(rows)[:, 0]",
                   "Use jnp.stack(rows)", "first.tolist() == [0.0, 1.0]"),
)

WHY = _entry.prose("""
A Python list (or tuple, or dict) of arrays is a container, not an array: it has no shape,
no mean, no reshape. NumPy converts a list where a function takes an array; jax.numpy does
not, and the container's own attributes are Python's. jnp.stack(xs) is the one array a list
of arrays of one shape lists, its first axis the list's order.
""")


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    indexed = ctx.top.is_a("TypeError") and ctx.top.message.endswith(
        "indices must be integers or slices, not tuple")
    if not ctx.top.is_a("AttributeError") and not indexed:
        return None
    line = _tracing.live_line(ctx)
    if line is None:
        return None
    location, frame, tree, code = line
    evaluate = Evaluator(frame)
    found: list[ast.Attribute | ast.Subscript] = []
    for node in ast.walk(tree):
        wanted = (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple)
                  if indexed else isinstance(node, ast.Attribute)
                  and node.attr in CONTAINER_LACKS)
        if wanted and isinstance(node, ast.Attribute | ast.Subscript) \
                and node.lineno == location.lineno and pytree_of_arrays(evaluate(node.value)):
            found.append(node)
    if len(found) != 1:
        return None
    node = found[0]
    value = evaluate(node.value)
    receiver = _tracing.segment(code, node.value)
    kind = type(value).__name__
    shapes = _shapes(value)
    count = len(value)  # type: ignore[arg-type]
    held = (f"a {kind} of {count} {_tracing.plural(count, 'JAX array', 'JAX arrays')}"
            + (f" of shape {shapes[0]}" if len(shapes) == 1 else ""))
    asked = (f"indexes `{receiver}` with several axes" if isinstance(node, ast.Subscript)
             else f"asks `{receiver}` for `{node.attr}`")
    explanation = (f"`{_tracing.segment(code, node)}`{_entry.at(location)} {asked}, and "
                   f"`{receiver}` is {held}: a Python {kind} of arrays is not an array"
                   + (", and has none." if isinstance(node, ast.Attribute) else
                      ", and takes one index at a time."))
    notes = []
    if all(is_jax_array(item) and type(item).__name__ != "ArrayImpl"
           for item in _items(value)):
        notes.append(f"`{receiver}` holds tracers: a Python list handed to a transformed "
                     "function arrives as a list of separate arrays. Where it is made, "
                     "`jnp.asarray(...)` makes it one array.")
    fixes = _stack_fix(ctx, location, node, receiver, value, shapes)
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=fixes, notes=tuple(notes))


def _items(value: object) -> list[object]:
    if type(value) is dict:
        return list(value.values())
    return list(value) if isinstance(value, list | tuple) else []


def _shapes(value: object) -> list[tuple[int, ...]]:
    """The distinct shapes of the container's items (in order met), when each is an array."""
    found: list[tuple[int, ...]] = []
    for item in _items(value):
        shape = getattr(item, "shape", None) if is_jax_array(item) else None
        if not isinstance(shape, tuple):
            return []
        if shape not in found:
            found.append(shape)
    return found


def _stack_fix(ctx: ErrorContext, location: Location, node: ast.Attribute | ast.Subscript,
               receiver: str,
               value: object, shapes: list[tuple[int, ...]]) -> tuple[Fix, ...]:
    if type(value) not in (list, tuple) or len(shapes) != 1 or not value \
            or node.value.lineno != node.value.end_lineno:
        return ()
    jnp = _jax_names.spell(ctx, "jax.numpy")
    if jnp is None:
        return ()
    after = f"{jnp}.stack({receiver})"
    return (rewrite_fix(
        ctx, location, _tracing.replacing(node.value, receiver, after),
        label=f"Use {after}" if len(after) <= 30 else "Stack the list",
        summary=(f"Write `{after}` for `{receiver}` on line {location.lineno}: the one array "
                 f"the {type(value).__name__} lists; then re-run."),
        safety=(f"Same values: {after} is the {type(value).__name__}'s arrays along a new "
                "first axis, in its order, as NumPy converts a list."), safe=True),)
