"""A collective ``run_scoped`` whose body writes to a ``jax.new_ref`` from outside it.

Under ``jax.jit``, mutable references (``jax.new_ref``) are turned into ordinary values
before compilation ("discharged"). The discharge rule of run_scoped cannot do that for a
shared allocation, so it stops before XLA's lowering rule (the flagship error) is reached.
"""

from __future__ import annotations

from jax_nbhelp.catalog import _entry
from jax_nbhelp.catalog import _run_scoped_family as family
from jax_nbhelp.catalog._example import NO_CORE_AXES, edited
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match

CODE = "JNH105"
TITLE = "Collective run_scoped writing to a jax.new_ref under jit"
MESSAGE = "run_scoped discharge does not support collective_axes"

_HELPER = '''\
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

def scale_into(x):
    result = jax.new_ref(jnp.zeros_like(x))
    def body(scratch):
        scratch[...] = x * 2
        result[...] = scratch[...] + 1
    pl.run_scoped(body, pltpu.VMEM(x.shape, x.dtype), collective_axes="core")
    return result[...]
'''

_CALL = "out = jax.jit(scale_into)(jnp.ones((8, 128)))"

EXAMPLES = (
    edited(_HELPER, _CALL, "Remove collective_axes", "bool((out == 3).all())", NO_CORE_AXES),
)

WHY = _entry.prose("""
jax.jit turns mutable references (jax.new_ref) into plain values before compiling.
run_scoped's rule for that step handles private scratch only; a collective allocation is
shared by the programs of a Pallas kernel, and outside a kernel there is exactly one
program, so there is nothing to share.
""")


MATCH = Match(MESSAGE)


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    location = family.operation_location(ctx)
    call_site = ctx.call_site()
    where = _entry.at(location)
    explanation = (
        f"The pl.run_scoped(..., collective_axes=...) call{where} writes to a jax.new_ref "
        "created outside its body, and was compiled with jax.jit outside any Pallas kernel. "
        "JAX cannot turn that reference into a value while the scratch is collective."
    )
    fix = family.remove_collective_axes_fix(
        ctx,
        location,
        safety=(
            "Same result outside a kernel: there is one program, so a shared allocation is "
            "simply a private one. Inside a plgpu.kernel with several threads keep "
            "collective_axes and run the kernel in GPU interpret mode instead."
        ),
    )
    return _entry.diagnosis(ctx, __name__, explanation, location=location, call_site=call_site,
                            fixes=(fix,))
