"""``jax.grad`` (or ``jax.jvp``) through a ``pallas_call``: Pallas derives no derivative of a
kernel in general (``ValueError: Linearization failed to produce known values for all output
primals.`` from inside ``pallas_call``; a bare ``AssertionError`` from
``_pallas_call_jvp_rule`` when the kernel reads ``pl.program_id``).

JAX can only differentiate a kernel by running the kernel's body in forward mode, which
fails for most kernels (grid indices, stateful refs, reductions across steps). The way out
is a ``jax.custom_vjp`` around the function that calls the kernel, whose backward pass is
a second kernel or the ``jax.numpy`` reference of the math. No fix: the backward pass is
the user's math.

Reports: jax-ml/jax#22197 (``jax.grad`` of a simple Pallas add kernel failing with an
AssertionError), marin-community/marin#3043 (``program_id`` under the pallas_call JVP rule
in a cross-entropy kernel), jax-ml/jax#19146 (how to give a Pallas kernel forward and
backward modes), google-deepmind/kfac-jax#244 (a missing transpose rule for pallas_call).
"""

from __future__ import annotations

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext, Link

CODE = "JNH218"
TITLE = "Differentiating through a pallas_call"
LINEARIZE = "Linearization failed to produce known values for all output primals"
TRIGGERS = (LINEARIZE, "AssertionError")

_SETUP = ("import jax, jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n\n"
          "def sine_kernel(x_ref, o_ref):\n    o_ref[...] = jnp.sin(x_ref[...])\n\n"
          "def sine(x):\n    return pl.pallas_call(sine_kernel, out_shape=jax.ShapeDtypeStruct("
          "x.shape, x.dtype),\n                          interpret=True)(x)")
_WITH_RULE = ("sine = jax.custom_vjp(sine)\n\ndef sine_fwd(x):\n    return sine(x), x\n\n"
              "def sine_bwd(x, g):\n    return (g * jnp.cos(x),)\n\n"
              "sine.defvjp(sine_fwd, sine_bwd)")

EXAMPLES = (
    corrected_cell(("import jax, jax.numpy as jnp", _SETUP),
                   "g = jax.grad(lambda x: sine(x).sum())(jnp.zeros(8))",
                   _WITH_RULE + "\n\ng = jax.grad(lambda x: sine(x).sum())(jnp.zeros(8))",
                   NO_FIX, "g.tolist() == [1.0] * 8"),
)

WHY = _entry.prose("""
A Pallas kernel is a program JAX runs as one opaque operation. To differentiate it, JAX
would have to push derivatives through the kernel's body, which works only for the simplest
kernels (not with grid indices, accumulation across grid steps, or scratch state). Kernels
are differentiated the way libraries do it: jax.custom_vjp around the function that calls
the kernel, with a backward pass written as another kernel or with jax.numpy.
""")


def _through_pallas(link: Link) -> bool:
    return any("pallas" in frame.filename.replace("\\", "/") and "pallas_call" in
               frame.filename for frame in link.frames)


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    location = ctx.deepest_user_location()
    # pallas_call's own frames, or (where JAX's stack before transformation stands in for
    # them) a user's line of the chain that calls it
    calling = [frame.location for link in ctx.chain for frame in link.user_frames
               if frame.location is not None and "pallas_call(" in frame.location.line]
    if not any(_through_pallas(link) for link in ctx.chain) and not calling:
        return None
    if calling and (location is None or "pallas_call(" not in location.line) and not any(
            frame.function == "_pallas_call_jvp_rule" for link in ctx.chain
            for frame in link.frames):
        location = calling[-1]
    linearize = ctx.find(LINEARIZE)
    jvp_rule = any(frame.function == "_pallas_call_jvp_rule" for link in ctx.chain
                   for frame in link.frames)
    if linearize is None and not (jvp_rule and ctx.top.is_a("AssertionError")):
        return None
    call_site = ctx.call_site()
    subject = _tracing.quoted_line(call_site, "Your code")
    kernel = f" (the kernel's line {location.label}: `{location.line.strip()}`)" \
        if jvp_rule and location is not None and location != call_site else ""
    explanation = (f"{subject} differentiates a function that calls pallas_call, and Pallas "
                   f"cannot derive the derivative of the kernel{kernel}.")
    notes = ["Wrap the function that calls the kernel in jax.custom_vjp and give it a "
             "backward pass: another kernel, or the math written with jax.numpy "
             "(`f = jax.custom_vjp(f)`, then `f.defvjp(f_fwd, f_bwd)`, where f_bwd returns a "
             "tuple of cotangents).",
             "To check numbers first, differentiate the jax.numpy reference of the kernel "
             "instead."]
    return _entry.diagnosis(ctx, __name__, explanation, location=location or call_site,
                            call_site=call_site, notes=notes,
                            error=(linearize or ctx.top).summary.splitlines()[0] or
                            "AssertionError")
