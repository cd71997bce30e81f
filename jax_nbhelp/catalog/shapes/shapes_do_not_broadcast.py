"""An elementwise operation between arrays whose shapes do not broadcast: ``a + b`` with
shapes ``(3,)`` and ``(4,)``, ``x * y`` with ``(2, 3)`` and ``(3, 2)`` (``TypeError: add got
incompatible shapes for broadcasting: (3,), (4,).``).

JAX's message names the shapes; the user's line has the names. The explanation puts them
together (`batch` is float32[4, 5], `bias` is float32[4]), says which dimension disagrees
(compared from the right, where broadcasting starts) and, where adding an axis or
transposing one operand would make them fit, says that as a possibility. No fix: which
shape is wrong is the user's knowledge.

Reports: google/lightweight_mmm#325 and #309 (``add got incompatible shapes for
broadcasting: (83,), (88,)`` with data of another length), google-research/jax3d#106
(``sub got incompatible shapes``).
"""

from __future__ import annotations

import re

from jax_nbhelp.catalog import _entry, _operands, _shapes, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext

CODE = "JNH561"
TITLE = "Arrays whose shapes do not broadcast"
MESSAGE = "got incompatible shapes for broadcasting"
NUMPY_STYLE = "Incompatible shapes for broadcasting: shapes="
TRIGGERS = (MESSAGE, NUMPY_STYLE)

_MESSAGE_RE = re.compile(r"(?P<op>\w+) got incompatible shapes for broadcasting: "
                         r"(?P<shapes>.+?)\.?$", re.M)
# JAX's primitive -> how users spell it
_SPELLINGS = {"add": ("add",), "sub": ("sub", "subtract"), "mul": ("mul", "multiply"),
              "div": ("div", "divide", "true_divide"), "max": ("maximum", "max"),
              "min": ("minimum", "min"), "pow": ("pow", "power"), "rem": ("remainder", "mod"),
              "atan2": ("arctan2",), "select_n": ("where", "select"),
              "eq": ("equal",), "ne": ("not_equal",), "lt": ("less",), "gt": ("greater",),
              "le": ("less_equal",), "ge": ("greater_equal",), "and": ("logical_and",),
              "or": ("logical_or",)}
# What performs the operation on a user's line (``engine.ask``): an elementwise operator
# or function; an addition JAX made inside another function (``jnp.linalg.cholesky``) is not
# the user's to explain as broadcasting.
OPERATIONS = frozenset({"+", "-", "*", "/", "//", "%", "**", "==", "!=", "<", "<=", ">", ">=",
                        "&", "|", "^", *_SPELLINGS,
                        *(name for names in _SPELLINGS.values() for name in names)})

EXAMPLES = (
    corrected_cell((JAX_IMPORTS, "scores = jnp.ones((4, 3))\nbias = jnp.arange(4.0)"),
                   "shifted = scores + bias", "shifted = scores + bias[:, None]", NO_FIX,
                   "shifted.shape == (4, 3)"),
    # Inside a jitted function: the tracers carry the shapes.
    corrected_cell((JAX_IMPORTS, "@jax.jit\ndef blend(a, b):\n    return 0.5 * a + 0.5 * b"),
                   "mix = blend(jnp.ones(3), jnp.ones(4))",
                   "mix = blend(jnp.ones(3), jnp.ones(3))", NO_FIX, "mix.shape == (3,)"),
)

WHY = _entry.prose("""
Elementwise operations pair the elements of their operands by broadcasting: the shapes are
compared from the last dimension backwards, and each pair of sizes must be equal, or one of
them 1 (that operand is repeated along it). A missing leading dimension counts as 1. Any
other pair of sizes has no pairing of elements.
""")


def _mismatch(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, int, int] | None:
    """The first dimension (counted from the right, as axes of the longer shape) whose
    sizes do not broadcast: (axis, size in a, size in b)."""
    for back in range(1, min(len(a), len(b)) + 1):
        x, y = a[-back], b[-back]
        if x != y and 1 not in (x, y):
            return max(len(a), len(b)) - back, x, y
    return None


def _broadcasts(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    return _mismatch(a, b) is None


def _hint(left: _operands.Operand, right: _operands.Operand) -> str | None:
    """One way the two shapes would fit: an added axis or a transpose of one operand."""
    a, b = left.shape or (), right.shape or ()
    for operand, mine, other in ((right, b, a), (left, a, b)):
        if len(mine) == 1 and len(other) >= 2 and mine[0] == other[-2]:
            return (f"`{operand.text}[:, None]` (shape {_shapes.shown((*mine, 1))}) would "
                    f"pair each element of {operand.text} with a row of the other operand")
        if len(mine) == 2 and _broadcasts(tuple(reversed(mine)), other) and mine[0] != mine[1]:
            return (f"`{operand.text}.T` (shape {_shapes.shown(tuple(reversed(mine)))}) "
                    "would fit, if the two are meant to line up that way")
    return None


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    outer = ctx.find(NUMPY_STYLE)
    link = ctx.find(MESSAGE)
    found = _MESSAGE_RE.search(link.message) if link is not None else None
    if outer is not None:  # jnp's own check: the shapes as the user's arrays have them
        link, op = outer, ""
        shapes = _shapes.shapes_in(outer.message.split("shapes=", 1)[1])
    elif link is not None and found is not None and link.is_a("TypeError"):
        op = found["op"]
        shapes = _shapes.shapes_in(found["shapes"])
    else:
        return None
    location = ctx.deepest_user_location()
    operations = _operands.operations(ctx, location, (op, *_SPELLINGS.get(op, ())) if op
                                      else ())
    operation = _shapes.operands_with(operations, shapes)
    subject = _tracing.quoted_line(location, "Your code")
    listed = ", ".join(_shapes.shown(s) for s in shapes)
    notes: list[str] = []
    if operation is not None:
        arrays = [o for o in operation.operands if o.shape is not None and not o.literal]
        explanation = (f"{subject} computes `{operation.text()}` elementwise, and the shapes "
                       f"do not broadcast: {_operands.listed(arrays)}.")
        if len(arrays) == 2:
            left, right = arrays
            mismatch = _mismatch(left.shape or (), right.shape or ())
            if mismatch is not None:
                _, x, y = mismatch
                explanation = explanation[:-1] + (f"; compared from the last dimension, "
                                                  f"`{left.text}` has {x} where `{right.text}` "
                                                  f"has {y}.")
            hint = _hint(left, right)
            if hint is not None:
                notes.append(f"If that is what you meant: {hint}.")
    else:
        explanation = (f"{subject} combines arrays of shapes {listed} elementwise"
                       f"{f' ({op})' if op else ''}, and those shapes do not broadcast.")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.call_site(), notes=notes,
                            error=link.summary.splitlines()[0])
