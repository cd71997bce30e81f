"""An operation on an unreduced array that has no rule for it: ``jnp.cos(c)`` where ``c`` is
the unreduced result of a sharded product (``NotImplementedError: unreduced rule for cos is
not implemented.``).

An unreduced array holds, on each device, a partial sum that has not been added up yet.
Only a few operations (additions of unreduced arrays, resharding) are defined on partial
sums; ``cos`` of a partial sum is not ``cos`` of the sum. The way out is to reduce first,
``jax.reshard(c, P(...))`` (or to ask for a reduced ``out_sharding`` where ``c`` is made). No
fix: the reduced layout is the user's choice.

Reports: jax-ml/jax#31918 (an unreduced einsum that failed in its rule), jax-ml/jax#31931
(an unreduced scalar reduction). JAX's docs teach it in the 301 sharding and autodiff
tutorial.
"""

from __future__ import annotations

import re

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import Example
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match

CODE = "JNH603"
TITLE = "An operation on an unreduced array (a sum not yet added up)"
MESSAGE = "unreduced rule for"

_MESSAGE_RE = re.compile(r"unreduced rule for (?P<op>\w+) is not implemented")

_SETUP = ("import jax, jax.numpy as jnp\n"
          "from jax.sharding import PartitionSpec as P, AxisType\n"
          "mesh = jax.make_mesh((1,), ('X',), axis_types=(AxisType.Explicit,))\n"
          "with jax.set_mesh(mesh):\n"
          "    a = jax.device_put(jnp.arange(4.0).reshape(2, 2), P(None, 'X'))\n"
          "    b = jax.device_put(jnp.arange(4.0, 8.0).reshape(2, 2), P('X', None))\n"
          "    c = jnp.einsum('ij,jk->ik', a, b, out_sharding=P(None, None, unreduced={'X'}))")

EXAMPLES = (
    # Unreduced arrays reach jnp functions with this message from jax 0.10 on (the
    # release whose jax.sharding has ManualAxisType; 0.9 fails elsewhere first).
    Example(setup=(_SETUP,), failing="with jax.set_mesh(mesh):\n    wave = jnp.cos(c)",
            fix="", check="float(wave[0, 0]) == float(jnp.cos(6.0))",
            fixed=(_SETUP, "with jax.set_mesh(mesh):\n"
                           "    wave = jnp.cos(jax.reshard(c, P(None, None)))"),
            requires=("jax.sharding:ManualAxisType",)),
)

WHY = _entry.prose("""
An unreduced array holds, on each device, a partial sum that has not been added up across
the mesh yet: it saves a communication when the next operation is another sum. Most
operations are not defined on partial sums (cos of a part is not the part of a cos), so
reduce the array first with jax.reshard, or make it reduced where it is created (its
out_sharding).
""")


MATCH = Match(MESSAGE, pattern=_MESSAGE_RE)


def diagnose(ctx: ErrorContext, link: Link, found: re.Match[str]) -> Diagnosis | None:
    op = found["op"]
    location = ctx.deepest_user_location()
    subject = _tracing.quoted_line(location, "Your code")
    arrays = [v.text for v in ctx.values_at(location) if v.is_array]
    which = f"`{arrays[0]}`" if arrays else "an array"
    explanation = (f"{subject} applies {op} to {which}, an unreduced array (partial sums not "
                   f"yet added up across devices), and {op} has no rule for partial sums.")
    target = arrays[0] if arrays else "x"
    notes = [f"Reduce it first: `jax.reshard({target}, P(...))` with the layout you want "
             "(P(None, None) for replicated), or give its out_sharding no unreduced axes "
             "where it is made."]
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.call_site(), notes=notes,
                            error=link.summary.split(" Please file", 1)[0])
