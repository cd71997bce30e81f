"""``jax.vmap`` of a function that calls ``io_callback(..., ordered=True)`` (``ValueError:
Cannot `vmap` ordered IO callback.``).

An ordered callback promises one call at a time, in program order; a batch would make all
its calls at once, which no order defines. The ways out: ``ordered=False`` (the calls may
then come in any order), or a loop (``lax.map``) when the order matters. No fix: which one
the effect needs is the user's knowledge.

Reports: jax-ml/jax#20628 (vmap of a loop holding an io_callback; the maintainers explain
that batching it is unsupported). JAX's docs teach it in External callbacks and the 201
callbacks tutorial.
"""

from __future__ import annotations

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match

CODE = "JNH592"
TITLE = "jax.vmap of an ordered io_callback"
MESSAGE = "Cannot `vmap` ordered IO callback"

_IMPORTS = ("import jax, jax.numpy as jnp\nfrom jax import lax\n"
            "from jax.experimental import io_callback\nlog = []")
_LOGGED = ("def logged(x):\n    return io_callback(lambda v: log.append(float(v)) or v, "
           "jax.ShapeDtypeStruct((), jnp.float32), x, ordered=True)")

EXAMPLES = (
    corrected_cell((_IMPORTS, _LOGGED), "out = jax.vmap(logged)(jnp.arange(3.0))",
                   "out = lax.map(logged, jnp.arange(3.0))", NO_FIX,
                   "out.tolist() == [0.0, 1.0, 2.0]"),
)

WHY = _entry.prose("""
An ordered io_callback promises that its calls happen one at a time, in program order. vmap
turns one call into a batch of calls made together, which has no order, so it refuses.
Either let the calls come in any order (ordered=False), or keep the order and map with a
loop (lax.map, or a Python for loop) instead of vmap.
""")


MATCH = Match(MESSAGE, "ValueError")


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    location = ctx.deepest_user_location()
    subject = _tracing.quoted_line(location, "Your code")
    explanation = (f"{subject} makes an ordered io_callback, and the function around it is "
                   "mapped with jax.vmap, which would make all the calls at once.")
    notes = ["If the calls need not come in order, pass ordered=False. If they must, map "
             "with lax.map(f, xs) (one element after another) instead of jax.vmap(f)(xs)."]
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.call_site(), notes=notes,
                            error=link.summary.splitlines()[0])
