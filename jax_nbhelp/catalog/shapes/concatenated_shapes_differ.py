"""Arrays concatenated (or stacked) whose other dimensions differ: ``jnp.concatenate([a, b])``
with shapes ``(2, 3)`` and ``(2, 4)`` (``TypeError: Cannot concatenate arrays with shapes
that differ in dimensions other than the one being concatenated: concatenating along
dimension 0 for shapes (2, 3), (2, 4).``), or of different numbers of dimensions.

The explanation names the arrays as the line lists them, with their shapes, the dimension
that differs, and the axis along which they would fit, when there is one. No fix: the axis
is the user's choice.

Reports: b-vanstraaten/QArray#1 (padding with the wrong number of columns before a
concatenate), jax-ml/jax#9934 (shapes (2, 2, 2) and (3, 2, 1), and a request for clearer
messages).
"""

from __future__ import annotations

import re

from jax_nbhelp.catalog import _entry, _shapes, _tracing
from jax_nbhelp.catalog._example import NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.line_values import Value
from jax_nbhelp.diagnosis.match import Match

CODE = "JNH564"
TITLE = "Arrays concatenated whose other dimensions differ"
# What concatenates on a user's line (``engine.ask``).
OPERATIONS = frozenset({"concatenate", "concat", "stack", "hstack", "vstack", "dstack",
                        "column_stack", "row_stack", "append", "block"})
OTHER_DIMENSIONS = "Cannot concatenate arrays with shapes that differ"
RANKS = "Cannot concatenate arrays with different numbers of dimensions"

_AXIS_RE = re.compile(r"along dimension (?P<axis>\d+) for shapes (?P<shapes>.+?)\.?$", re.M)

EXAMPLES = (
    corrected_cell(("import jax, jax.numpy as jnp",
                    "left = jnp.ones((2, 3))\nright = jnp.zeros((2, 4))"),
                   "both = jnp.concatenate([left, right])",
                   "both = jnp.concatenate([left, right], axis=1)", NO_FIX,
                   "both.shape == (2, 7)"),
)

WHY = _entry.prose("""
Concatenating joins arrays end to end along one axis, so every other dimension must have the
same size in all of them (and they must have the same number of dimensions); only the sizes
along the joined axis may differ.
""")


def _fitting_axes(shapes: list[tuple[int, ...]]) -> list[int]:
    """The axes along which these shapes could be concatenated."""
    if len({len(s) for s in shapes}) != 1:
        return []
    rank = len(shapes[0])
    return [axis for axis in range(rank)
            if len({tuple(d for i, d in enumerate(s) if i != axis) for s in shapes}) == 1]


MATCH = Match(OTHER_DIMENSIONS, "TypeError", also=(RANKS,))


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    location = ctx.deepest_user_location()
    axis_found = _AXIS_RE.search(link.message)
    shapes = _shapes.shapes_in(axis_found["shapes"] if axis_found else link.message)
    values = [v for v in ctx.values_at(location) if v.shape is not None]
    named: list[Value] = []
    for shape in shapes:
        match = next((v for v in values if v.shape == shape and v not in named), None)
        if match is not None:
            named.append(match)
    subject = _tracing.quoted_line(location, "Your code")
    listed = (", ".join(f"`{v.text}` is {v.summary}" for v in named)
              if len(named) == len(shapes) else
              "shapes " + ", ".join(_shapes.shown(s) for s in shapes))
    if axis_found is not None:
        axis = int(axis_found["axis"])
        explanation = (f"{subject} joins arrays along axis {axis} whose other dimensions "
                       f"differ: {listed}.")
    else:
        explanation = (f"{subject} joins arrays with different numbers of dimensions: "
                       f"{listed}.")
    notes: list[str] = []
    axes = _fitting_axes(shapes)
    if axes:
        notes.append(f"They would fit along axis {axes[0]} (axis={axes[0]}), if that is the "
                     "axis you meant.")
    elif axis_found is None:
        notes.append("Add the missing axis to the smaller array first (`x[None]`, "
                     "`x[:, None]`), or use jnp.stack for arrays of one shape.")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.call_site(), notes=notes,
                            error=link.summary.splitlines()[0])
