"""An operation whose output sharding JAX cannot decide in explicit sharding mode: a matrix
product whose contracting dimensions are sharded, an index or gather of a sharded array
(``ShardingTypeError: Contracting dimensions are sharded and it is ambiguous how the output
should be sharded. Please specify the output sharding via the `out_sharding` parameter.``).

In explicit mode every array's sharding is part of its type, and an operation whose result
could be laid out in several ways asks for one. The explanation names the operands with
their shardings (``jax.typeof`` shows them) and the way out, ``out_sharding=`` on the
operation or a ``jax.reshard`` of an operand first. No fix: the layout is the user's choice
(replicated, sharded, or left unreduced) and each costs different communication.

Reports: jax-ml/jax#31800 (``A.T @ A`` with the contracting dimension sharded),
jax-ml/jax#28542 (``a[:, 1]`` of an explicitly sharded array), jax-ml/jax#29654
(``jnp.nonzero`` under an explicit mesh), jax-ml/jax#31927 (an einsum with unreduced axes).
JAX's docs teach it in the 301 sharding and autodiff tutorial.
"""

from __future__ import annotations

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext

CODE = "JNH602"
TITLE = "An output sharding JAX cannot decide in explicit mode"
ERROR = "ShardingTypeError"
TRIGGERS = (ERROR,)

_SETUP = ("import jax, jax.numpy as jnp\n"
          "from jax.sharding import PartitionSpec as P, AxisType\n"
          "mesh = jax.make_mesh((1,), ('X',), axis_types=(AxisType.Explicit,))\n"
          "with jax.set_mesh(mesh):\n"
          "    a = jax.device_put(jnp.arange(4.0).reshape(2, 2), P(None, 'X'))\n"
          "    b = jax.device_put(jnp.arange(4.0, 8.0).reshape(2, 2), P('X', None))")

EXAMPLES = (
    corrected_cell((_SETUP,), "with jax.set_mesh(mesh):\n    c = a @ b",
                   "with jax.set_mesh(mesh):\n    c = jnp.matmul(a, b, out_sharding=P(None, None))",
                   NO_FIX, "c.tolist() == [[6.0, 7.0], [26.0, 31.0]]"),
)

WHY = _entry.prose("""
In explicit sharding mode, an array's sharding is part of its type, and JAX works out the
sharding of every result from its operands. Where several layouts would be correct (a
product summed over a sharded dimension can end replicated, sharded, or unreduced), JAX does
not pick one behind your back: name it with out_sharding=, or reshard an operand first.
""")


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    link = next((link for link in ctx.chain if link.is_a(ERROR)), None)
    if link is None:
        return None
    location = ctx.deepest_user_location()
    subject = _tracing.quoted_line(location, "Your code")
    arrays = [v for v in ctx.values_at(location) if v.is_array]
    named = (" (" + ", ".join(f"{v.text} is {v.summary}" for v in arrays) + ")"
             if arrays else "")
    first = link.message.split(". ", 1)[0].rstrip(".")
    explanation = (f"{subject} works on explicitly sharded arrays{named}, and JAX cannot "
                   f"decide the result's sharding: {first[0].lower() + first[1:]}.")
    notes = ["Name the result's sharding on the operation (`out_sharding=P(...)` on "
             "jnp.matmul, jnp.einsum, jnp.dot, indexing with .at[...].get), or "
             "`jax.reshard` an operand first; `jax.typeof(x)` shows an array's sharding."]
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.call_site(), notes=notes,
                            error=link.summary.splitlines()[0])
