"""Differentiating through a host callback: ``jax.grad`` of a function that calls
``jax.pure_callback`` (``ValueError: Pure callbacks do not support JVP. Please use
`jax.custom_jvp` to use callbacks while taking gradients.``) or ``io_callback``
(``ValueError: IO callbacks do not support JVP.``).

A callback runs Python code JAX cannot see into, so JAX cannot differentiate it. The way
out is a rule for its derivative: ``jax.custom_jvp`` (or ``custom_vjp``) around the
callback, computing the derivative itself (with another callback, or jnp). No fix: the
derivative is math only the user has.

Reports: jax-ml/jax#16650 (a Hessian-vector product through pure_callback wrapped in
custom_jvp), jax-ml/jax#23614 (io_callback inside a custom_vjp), jax-ml/jax#30401 (a jvp rule
calling pure_callback on tangents). JAX's docs teach it in External callbacks and the 201
callbacks tutorial.
"""

from __future__ import annotations

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import NO_FIX, NUMPY_IMPORTS, corrected_cell
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match

CODE = "JNH591"
TITLE = "Differentiating through a host callback"
PURE = "Pure callbacks do not support JVP"
IO = "IO callbacks do not support JVP"

_HOST = ("def host_sin(x):\n    return jax.pure_callback(np.sin, jax.ShapeDtypeStruct("
         "x.shape, x.dtype), x)")
_WITH_RULE = ("@jax.custom_jvp\ndef host_sin(x):\n    return jax.pure_callback(np.sin, "
              "jax.ShapeDtypeStruct(x.shape, x.dtype), x)\n\n@host_sin.defjvp\n"
              "def host_sin_jvp(primals, tangents):\n    (x,), (t,) = primals, tangents\n"
              "    return host_sin(x), jnp.cos(x) * t")

EXAMPLES = (
    corrected_cell((NUMPY_IMPORTS, _HOST), "slope = jax.grad(host_sin)(jnp.array(0.0))",
                   _WITH_RULE + "\n\nslope = jax.grad(host_sin)(jnp.array(0.0))", NO_FIX,
                   "float(slope) == 1.0"),
)

WHY = _entry.prose("""
A host callback runs Python code (NumPy, SciPy, your own) that JAX cannot trace, so JAX
knows nothing about its derivative. Give it one: wrap the function that calls the callback
in jax.custom_jvp (or jax.custom_vjp) and compute the derivative yourself, with jnp or with
another callback.
""")


MATCH = Match(PURE, "ValueError", also=(IO,))


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    kind = "jax.pure_callback" if PURE in link.message else "io_callback"
    location = ctx.deepest_user_location()
    subject = _tracing.quoted_line(location, "Your code")
    explanation = (f"{subject} calls {kind}, and the function around it is being "
                   "differentiated: JAX has no derivative for code it cannot see into.")
    notes = [f"Define the derivative yourself: decorate the function that calls {kind} "
             "with @jax.custom_jvp and give it a rule with @f.defjvp that returns the "
             "output and its tangent (computed with jnp, or with another callback)."]
    if kind == "io_callback":
        notes.append("io_callback is for side effects (printing, logging, I/O): if the "
                     "callback computes a value, pure_callback (which a custom_jvp rule can "
                     "wrap) is the tool; for logging, jax.debug.callback does not block "
                     "differentiation.")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.call_site(), notes=notes,
                            error=link.summary.splitlines()[0])
