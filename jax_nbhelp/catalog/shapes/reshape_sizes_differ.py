"""A reshape into a shape with another number of elements: ``x.reshape(3, 4)`` of an array
of 10 elements (``TypeError: cannot reshape array of shape (10,) (size 10) into shape (3, 4)
(size 12)``).

The explanation names the array as written, its shape and both sizes, and the shapes that
would hold its elements when one dimension of the requested shape is left to JAX (``-1``).
No fix: which dimension is wrong is the user's.

Reports: spinsphotonics/pjz#14 (layer shapes that did not multiply out),
vllm-project/tpu-inference#46 (a KV-cache block reshaped with the wrong block size),
huggingface/diffusers#1746 (``guidance_scale.reshape(prompt_ids.shape[:2])``).
"""

from __future__ import annotations

import math
import re

from jax_nbhelp.catalog import _entry, _operands, _shapes, _tracing
from jax_nbhelp.catalog._example import NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match

CODE = "JNH563"
TITLE = "A reshape into a shape of another size"
MESSAGE = "cannot reshape array of shape"
# What performs a reshape on a user's line (``engine.ask``).
OPERATIONS = frozenset({"reshape"})

_MESSAGE_RE = re.compile(r"cannot reshape array of shape (?P<old>\([\d, ]*\)) \(size "
                         r"(?P<size>\d+)\) into shape (?P<new>\([\d, -]*\)) (?:\(size "
                         r"(?P<new_size>\d+)\)|because the product of specified axis sizes "
                         r"\((?P<known>\d+)\) does not evenly divide)")
# JAX's reshape checks the requested shape in one function, whatever the wording
SITES = ("numpy/array_methods.py:_compute_newshape",)

EXAMPLES = (
    corrected_cell(("import jax, jax.numpy as jnp", "pixels = jnp.arange(10.0)"),
                   "grid = pixels.reshape(3, 4)", "grid = pixels.reshape(2, -1)", NO_FIX,
                   "grid.shape == (2, 5)"),
    # -1 with the other dimensions not dividing the size: another wording of the same check
    corrected_cell(("import jax, jax.numpy as jnp", "pixels = jnp.arange(10.0)"),
                   "grid = pixels.reshape(-1, 3)", "grid = pixels.reshape(-1, 5)", NO_FIX,
                   "grid.shape == (2, 5)"),
)

WHY = _entry.prose("""
A reshape keeps every element and only changes how they are arranged, so the new shape must
hold exactly as many elements as the old one (the product of its dimensions). One dimension
may be -1: JAX computes it from the others.
""")


MATCH = Match(MESSAGE, pattern=_MESSAGE_RE, sites=SITES)


def diagnose(ctx: ErrorContext, link: Link, found: re.Match[str]) -> Diagnosis | None:
    size = int(found["size"])
    new = _shapes.shapes_in(found["new"])[0] if _shapes.shapes_in(found["new"]) else ()
    location = ctx.deepest_user_location()
    operation = next(iter(_operands.operations(ctx, location, ("reshape",))), None)
    name = operation.operands[0] if operation is not None and operation.operands else None
    subject = _tracing.quoted_line(location, "Your code")
    array = (f"`{name.text}` ({name.value.summary})" if name is not None and name.value
             is not None else f"an array of shape {found['old']}")
    if found["known"] is not None:  # one dimension left to JAX (-1)
        explanation = (f"{subject} reshapes {array}, which has {size} elements, into "
                       f"{found['new']}: the other dimensions take {found['known']} elements "
                       f"each, and {size} is not a multiple of {found['known']}, so no size "
                       "for the -1 dimension holds them all.")
    else:
        explanation = (f"{subject} reshapes {array}, which has {size} elements, into "
                       f"{found['new']}, which holds {found['new_size']}.")
    notes: list[str] = []
    options = []
    for index in range(len(new) if found["known"] is None else 0):
        rest = math.prod(d for i, d in enumerate(new) if i != index)
        if rest and size % rest == 0:
            options.append(tuple(size // rest if i == index else d for i, d in enumerate(new)))
    if options:
        notes.append("Shapes that hold its elements with the other dimensions you asked "
                     "for: " + ", ".join(_shapes.shown(o) for o in options[:3])
                     + " (write -1 for the dimension JAX should compute).")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.call_site(), notes=notes,
                            error=link.summary.splitlines()[0])
