"""A kernel that stores a value of another shape than its output block: ``out_shape`` (or
``out_specs``) and what the kernel computes disagree.

``o_ref[...] = value`` checks the value against the ref's block: ``ValueError: Invalid shape
for `swap`. Ref shape: (8, 64). Expected shape: (8, 64). Value shape: (8, 128).`` The ref's
shape comes from ``out_shape`` and the output ``BlockSpec``; the value's from the kernel's
arithmetic. Which one is wrong only the user knows, so this is explained, not rewritten.

Reports: jax-ml/jax PR #19275 (out_shape and out_specs that do not match, in Pallas's own
docs), pytorch/xla#8469 (a grid and block set-up that did not fit the output shape).
"""

from __future__ import annotations

import re

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match

CODE = "JNH217"
TITLE = "Kernel stores a value of another shape than its block"
MESSAGE = "Invalid shape for `swap`"

_SHAPES = re.compile(r"Ref shape: (?P<ref>\([^)]*\))\..*?Value shape: (?P<value>\([^)]*\))",
                     re.DOTALL)

_SETUP = ("import jax, jax.numpy as jnp\nfrom jax.experimental import pallas as pl",
          "def add_one(x_ref, o_ref):\n    o_ref[...] = x_ref[...] + 1")
_CALL = ("out = pl.pallas_call(add_one, out_shape=jax.ShapeDtypeStruct({0}, jnp.float32),"
         "\n                     interpret=True)(jnp.ones((8, 128)))")

EXAMPLES = (
    corrected_cell(_SETUP, _CALL.format("(8, 64)"), _CALL.format("(8, 128)"), NO_FIX,
                   "out.shape == (8, 128)"),
)

WHY = _entry.prose("""
Each kernel instance sees its output as a ref of the block's shape, which pallas_call
derives from out_shape and the output BlockSpec. A store must fill that block with a value
of exactly its shape; Pallas does not broadcast, pad or cut it.
""")


MATCH = Match(MESSAGE, "ValueError", _SHAPES)


def diagnose(ctx: ErrorContext, link: Link, shapes: re.Match[str]) -> Diagnosis | None:
    location = ctx.deepest_user_location()
    subject = _tracing.quoted_line(location, "A store in the kernel")
    explanation = (f"{subject} stores a value of shape {shapes['value']} into a block of "
                   f"shape {shapes['ref']}. The block's shape comes from out_shape and the "
                   "output BlockSpec, the value's from the kernel's computation, and they "
                   "must be the same.")
    notes = [f"If the output really is {shapes['value']} per block, make out_shape (and the "
             f"output BlockSpec) say so; if the block is right, compute or slice the value "
             f"to {shapes['ref']} before storing it."]
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), notes=notes,
                            error=link.summary.splitlines()[0])
