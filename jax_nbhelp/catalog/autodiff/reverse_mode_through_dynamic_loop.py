"""``jax.grad`` (reverse mode) through a ``lax.while_loop``, or a ``lax.fori_loop`` whose
bounds are traced (``ValueError: Reverse-mode differentiation does not work for
lax.while_loop or lax.fori_loop with dynamic start/stop values.``).

Reverse mode stores every step to run it backwards, and a loop whose length is decided
while it runs has no number of steps to store. The ways out depend on what the loop is, and
the explanation names them: bounds known in Python (``fori_loop`` then lowers to a ``scan``),
a ``scan`` over a fixed maximum number of steps, or forward mode (``jax.jacfwd``), which
does go through while loops. No fix: each computes another thing, or needs a bound only the
user knows.

Reports: google-deepmind/mujoco#1207 (``jax.grad`` through ``mjx.step``'s solver loop),
wilson-labs/cola#120 (through a Lanczos eigensolver), dynamiqs/dynamiqs#917 (a loop with
dynamic bounds in ``wigner``), tensorflow/tensorflow#62828 (TFP-on-JAX ``gram_schmidt``).
"""

from __future__ import annotations

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import LAX_IMPORTS, NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match

CODE = "JNH523"
TITLE = "Reverse-mode differentiation through a loop of unknown length"
MESSAGE = "Reverse-mode differentiation does not work for lax.while_loop"

_GROW = ("def grow(rate):\n"
         "    return lax.while_loop(lambda v: v < 10.0, lambda v: v * rate, 1.0)")

EXAMPLES = (
    corrected_cell((LAX_IMPORTS, _GROW), "slope = jax.grad(grow)(2.0)",
                   "slope = jax.jacfwd(grow)(2.0)", NO_FIX, "float(slope) == 32.0"),
)

WHY = _entry.prose("""
Reverse mode (jax.grad, vjp, jacrev) runs the computation forward, keeps what each step
needs, then runs the steps backwards. A while_loop (or a fori_loop whose bounds are traced)
decides its number of steps while it runs, so there is no fixed list of steps to keep.
Forward mode (jax.jvp, jacfwd) carries derivatives along with the values and goes through
such loops; scan, and fori_loop with Python bounds, have a fixed length and work with
reverse mode.
""")


MATCH = Match(MESSAGE, "ValueError")


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    location = ctx.deepest_user_location()
    call_site = ctx.call_site()
    subject = _tracing.quoted_line(location, "A loop in your code")
    explanation = (f"{subject} is a loop whose number of steps is decided while it runs, and "
                   f"reverse-mode differentiation (jax.grad) needs a fixed number of steps.")
    notes = [
        "If the number of steps is known before the loop runs, pass it as a Python int: "
        "`lax.fori_loop(0, n, body, init)` with Python bounds becomes a scan, which grad "
        "differentiates.",
        "If only a maximum is known, run a `lax.scan` for that many steps and stop updating "
        "once done (`jnp.where(done, carry, step(carry))`).",
        "For derivatives with respect to a few inputs, forward mode goes through while "
        "loops: jax.jacfwd(f)(x) (or jax.jvp) instead of jax.grad.",
    ]
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=call_site, notes=notes,
                            error=link.summary.split(" Try using", 1)[0])
