"""A ``jax.vmap``-ped function that writes a batched value into a ref made outside it:
``r[...] = x`` where ``r = jax.new_ref(0.0)`` is global (``Exception: performing a set/swap
operation with vmapped value on an unbatched array reference of type Ref{float32[]}. Move the
array reference to be an argument to the vmapped function?``).

Every member of the batch would write its own value into the one ref, and which write
wins is undefined. The ways out: a ref with one slot per batch member passed into the
mapped function (so each member writes its own), or returning the values instead of
writing them. No fix: which one the code needs is the user's design.

Reports: jax-ml/jax#39288 (vmap over a ref with in_axes), jax-ml/jax#39290 (refs written in
branches under vmap). JAX's docs teach it in the 101 state tutorial.
"""

from __future__ import annotations

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match

CODE = "JNH507"
TITLE = "A batched value written into one ref under jax.vmap"
MESSAGE = "with vmapped value on an unbatched array reference"

_SETUP = ("import jax, jax.numpy as jnp\nlast = jax.new_ref(0.0)\n\n"
          "def remember(x):\n    last[...] = x\n    return x * 2")
_FIXED = ("import jax, jax.numpy as jnp\nslots = jax.new_ref(jnp.zeros(3))\n\n"
          "def remember(x, slot):\n    slot[...] = x\n    return x * 2")

EXAMPLES = (
    corrected_cell(("import jax, jax.numpy as jnp", _SETUP),
                   "out = jax.vmap(remember)(jnp.arange(3.0))",
                   _FIXED + "\n\nout = jax.vmap(remember)(jnp.arange(3.0), slots)", NO_FIX,
                   "out.tolist() == [0.0, 2.0, 4.0] and slots[...].tolist() == [0.0, 1.0, 2.0]"),
)

WHY = _entry.prose("""
Under jax.vmap your function runs for a whole batch at once. A ref made outside it is one
box: every member of the batch would write its own value into the same place, and which
write wins is undefined, so JAX refuses. Give each member its own slot (a ref with a batch
dimension, passed to the mapped function), or return the values instead of writing them.
""")


MATCH = Match(MESSAGE)


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    location = ctx.deepest_user_location()
    subject = _tracing.quoted_line(location, "Your code")
    explanation = (f"{subject} writes a batched value into a ref made outside the function "
                   "jax.vmap maps, so every member of the batch would write the same place.")
    notes = ["Pass the ref in, with one slot per batch member (`jax.new_ref(jnp.zeros(n))` "
             "mapped along its first axis), or return the value and store the result of "
             "the vmap after it."]
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.call_site(), notes=notes,
                            error=link.summary.split(" Move the", 1)[0])
