"""Forward-mode differentiation of a ``jax.custom_vjp`` function: ``jax.jvp``, ``jax.jacfwd``
or ``jax.hessian`` (which is forward over reverse) (``TypeError: can't apply forward-mode
autodiff (jvp) to a custom_vjp function.``).

A ``custom_vjp`` rule defines reverse mode only. The ways out: reverse mode twice for a
Hessian (``jax.jacrev(jax.jacrev(f))``), reverse mode instead of forward, or a
``jax.custom_jvp`` rule, from which JAX derives both modes. No fix: which one fits is the
user's choice, and a ``custom_jvp`` rule is new math.

Reports: jax-ml/jax#16049 (``jax.hessian`` of a custom_vjp function), pyro-ppl/numpyro#1195
(a Laplace approximation's Hessian through ``odeint``), jax-ml/jax#7401 (``jit(hessian(...))``
through ``odeint``), google/jaxopt#474 (``jax.hessian`` through ``custom_root``). JAX's docs
teach it in the custom derivatives tutorial.
"""

from __future__ import annotations

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match

CODE = "JNH525"
TITLE = "Forward-mode differentiation of a custom_vjp function"
MESSAGE = "can't apply forward-mode autodiff (jvp) to a custom_vjp function"

_SOFT = ("@jax.custom_vjp\ndef soft(x):\n    return jnp.tanh(x)\n\n"
         "def soft_fwd(x):\n    y = jnp.tanh(x)\n    return y, y\n\n"
         "def soft_bwd(y, g):\n    return (g * (1 - y ** 2),)\n\nsoft.defvjp(soft_fwd, soft_bwd)")

EXAMPLES = (
    corrected_cell((JAX_IMPORTS, _SOFT), "slope = jax.jacfwd(soft)(0.0)",
                   "slope = jax.jacrev(soft)(0.0)", NO_FIX, "float(slope) == 1.0"),
)

WHY = _entry.prose("""
jax.custom_vjp gives JAX a rule for reverse mode only (vjp, grad, jacrev). Forward mode
(jvp, jacfwd, and jax.hessian, which is jacfwd of jacrev) needs a rule for pushing tangents
forward, which a custom_vjp does not have. jax.custom_jvp defines that rule, and JAX derives
reverse mode from it.
""")


MATCH = Match(MESSAGE, "TypeError")


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    location = ctx.call_site()
    line = location.line if location is not None else ""
    jax = ctx.alias("jax") or "jax"
    asked = next((name for name in ("hessian", "jacfwd", "jvp", "linearize") if
                  f"{name}(" in line), "forward mode")
    subject = _tracing.quoted_line(location, "Your code")
    explanation = (f"{subject} differentiates a jax.custom_vjp function in forward mode "
                   f"({asked}), and a custom_vjp rule defines reverse mode only.")
    notes = []
    if asked == "hessian":
        notes.append(f"For a Hessian, reverse mode twice works with a custom_vjp: "
                     f"`{jax}.jacrev({jax}.jacrev(f))` in place of `{jax}.hessian(f)` (its "
                     "backward rule must itself be differentiable).")
    elif asked in ("jacfwd", "forward mode"):
        notes.append(f"jacrev computes the same Jacobian in reverse mode: `{jax}.jacrev(f)`.")
    notes.append("To support both modes, define the rule with jax.custom_jvp instead: JAX "
                 "derives reverse mode from a jvp rule.")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), notes=notes,
                            error=link.summary.splitlines()[0])
