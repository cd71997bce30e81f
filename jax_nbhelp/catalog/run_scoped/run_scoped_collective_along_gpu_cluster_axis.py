"""A collective ``run_scoped`` along a Mosaic GPU kernel's cluster axis.

GPU interpret mode shares scoped allocations between the threads of one block only. Naming a
cluster axis (``plgpu.kernel(..., cluster=, cluster_names=)``) in ``collective_axes`` raises
``Requesting collective allocations, but no explicit thread axis specified.`` when the
kernel has no ``thread_name=``, and ``Collective allocations along cluster axes are not
supported.`` when it has one. No rewrite keeps the meaning (memory shared across the blocks
of a cluster), so the diagnosis explains and offers no fix.
"""

from __future__ import annotations

from jax_nbhelp.catalog import _entry
from jax_nbhelp.catalog import _run_scoped_family as family
from jax_nbhelp.catalog._example import NO_FIX, Example, edit, edited, scratch_kernel
from jax_nbhelp.catalog.run_scoped.run_scoped_collective_axis_not_in_gpu_kernel import (
    _CHECK,
    _IMPORT_PARAMS,
    _REQUIRES,
)
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match

CODE = "JNH110"
TITLE = "Collective run_scoped along a GPU kernel's cluster axis"
NO_THREAD_AXIS = "Requesting collective allocations, but no explicit thread axis"
CLUSTER_AXES = "Collective allocations along cluster axes are not supported."

_CLUSTER = _IMPORT_PARAMS + "\n" + scratch_kernel("add_one", "plgpu.SMEM", "c") + '''
add_one_gpu = plgpu.kernel(add_one, jax.ShapeDtypeStruct((8, 128), jnp.float32),
                           cluster=(2,), cluster_names=("c",), interpret=InterpretGPUParams())
'''

_CALL = "out = add_one_gpu(jnp.ones((8, 128)))"

_THREADED = ('cluster_names=("c",), ', 'cluster_names=("c",), num_threads=2, thread_name="wg", ')

EXAMPLES = (
    edited(_CLUSTER, _CALL, NO_FIX, _CHECK, (', collective_axes="c"', ""), requires=_REQUIRES),
    Example(setup=(edit(_CLUSTER, _THREADED),), failing=_CALL, fix=NO_FIX, check=_CHECK,
            fixed=(edit(_CLUSTER, ('collective_axes="c"', 'collective_axes="wg"'), _THREADED),
                   _CALL),
            requires=_REQUIRES),
)

WHY = _entry.prose("""
A scoped allocation lives in one block's shared memory, which only that block's threads
(plgpu.kernel's thread_name= axis) can share. GPU interpret mode does not model memory
shared across the blocks of a cluster, so it refuses cluster axes in collective_axes, and
without thread_name= a kernel has no axis to share along at all.
""")




MATCH = Match(NO_THREAD_AXIS, also=(CLUSTER_AXES,))


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    location = family.operation_location(ctx)
    failing = ctx.failing_cell()
    where = _entry.at(location)
    if NO_THREAD_AXIS in link.message:
        explanation = (
            f"The pl.run_scoped(...){where} shares its allocation along a cluster axis of a "
            "GPU kernel built without thread_name= (so with one thread per block). Only the "
            "threads of one block can share a scoped allocation."
        )
    else:
        explanation = (
            f"The pl.run_scoped(...){where} shares its allocation along a cluster axis. Only "
            "the threads of one block (the kernel's thread_name= axis) can share a scoped "
            "allocation."
        )
    notes = (
        "Data that blocks of a cluster exchange must go through an output (GMEM) buffer; "
        "scratch that one block uses alone needs no cluster axis in collective_axes (the "
        "thread axis, when the kernel has threads).",
    )
    return _entry.diagnosis(ctx, __name__, explanation, location=location, call_site=failing,
                            notes=notes, error=link.summary)
