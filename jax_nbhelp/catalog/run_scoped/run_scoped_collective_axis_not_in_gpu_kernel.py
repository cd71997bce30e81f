"""A collective ``run_scoped`` in a Mosaic GPU kernel names an axis the kernel does not have.

GPU interpret mode checks each name in ``collective_axes`` against the kernel's axes (its
cluster axes, then its thread axis) and raises ``Collective axis `x` not found among axes
`['wg']```. Two stories lead here:

- the name is not the kernel's ``thread_name`` (a typo, a TPU axis name, ``None``): when the
  kernel has exactly one axis, its thread axis, that is the only name that can be meant;
- the kernel has no ``thread_name``/``num_threads`` (JAX prints a placeholder object for its
  one unnamed thread): each block runs one thread, so nothing is shared and the allocation
  need not be collective.
"""

from __future__ import annotations

from dataclasses import replace

from jax_nbhelp.catalog import _entry
from jax_nbhelp.catalog import _gpu_thread_axis as axes
from jax_nbhelp.catalog import _run_scoped_family as family
from jax_nbhelp.catalog._example import (
    GPU_PARAMS_IMPORT,
    GPU_PRELUDE,
    edit,
    edited,
    scratch_kernel,
)
from jax_nbhelp.core.model import Diagnosis, Fix
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match
from jax_nbhelp.jaxapi import capabilities

CODE = "JNH108"
TITLE = "Collective run_scoped names an axis the GPU kernel does not have"
MESSAGE = "not found among axes"

# These messages are jax 0.10's GPU interpreter. jax 0.9 words them differently ("... only
# supported when it contains a single axis that agrees with the thread axis", "does not support
# (non-trivial) clusters") or accepts a missing thread axis, so the examples need 0.10's module.
_REQUIRES = ("absl", "jax._src.pallas.mosaic_gpu.interpret.params")

_IMPORT_PARAMS = GPU_PRELUDE + "\n" + GPU_PARAMS_IMPORT

# The output type is passed by position: jax 0.10 calls it out_type, 0.9 out_shape.
_THREADS = _IMPORT_PARAMS + "\n" + scratch_kernel("add_one", "plgpu.SMEM", "core") + '''
add_one_gpu = plgpu.kernel(add_one, jax.ShapeDtypeStruct((8, 128), jnp.float32),
                           num_threads=2, thread_name="wg", interpret=InterpretGPUParams())
'''

_ONE_THREAD = edit(
    _THREADS,
    ('jnp.float32),\n                           num_threads=2, thread_name="wg", interpret=',
     "jnp.float32),\n                           interpret="),
    ('collective_axes="core"', 'collective_axes="wg"'),
)

_CALL = "out = add_one_gpu(jnp.ones((8, 128)))"
_CHECK = "bool((out == 3).all())"

EXAMPLES = (
    edited(_THREADS, _CALL, "Use the thread axis 'wg'", _CHECK,
           ('collective_axes="core"', 'collective_axes="wg"'), requires=_REQUIRES),
    edited(_ONE_THREAD, _CALL, "Remove collective_axes", _CHECK, (', collective_axes="wg"', ""),
           requires=_REQUIRES),
)

WHY = _entry.prose("""
In a Mosaic GPU kernel an allocation can only be shared along the kernel's own axes: its
threads (plgpu.kernel's thread_name=) and, in principle, its cluster axes. GPU interpret
mode checks every name in collective_axes against them and refuses one it does not know; a
kernel without thread_name= has a single unnamed thread per block.
""")


MATCH = Match(MESSAGE)


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    found = axes.not_found(link.message)
    if found is None:
        return None
    axis, axes_text = found
    location = family.operation_location(ctx)
    failing = ctx.failing_cell()
    where = _entry.at(location)
    named = axes.named_axes(axes_text)
    notes: list[str] = []
    fixes: tuple[Fix, ...] = ()
    if axes.PLACEHOLDER.fullmatch(axes_text.strip("[]")):
        explanation = (
            f"The pl.run_scoped(...){where} asks for an allocation shared along `{axis}`, "
            "but its GPU kernel has no named axes: it was built without thread_name= and "
            "num_threads=, so each block runs a single thread and there is no axis to "
            "share along."
        )
        fix = family.remove_collective_axes_fix(
            ctx,
            location,
            safety=(
                "Same values: with one thread per block the allocation has a single user "
                "either way. If the kernel should run several threads, pass "
                f"num_threads=N, thread_name=\"{axis}\" to plgpu.kernel instead."
            ),
        )
        fixes = (replace(fix, runtime=capabilities.fresh_gpu_interpreter),)
        notes.append(axes.FRESH_NOTE)
    elif named is not None and len(named) == 1:
        (thread,) = named
        explanation = (
            f"The pl.run_scoped(...){where} shares its allocation along `{axis}`, but the "
            f"GPU kernel's only axis is its thread axis `{thread}` (thread_name=\"{thread}\")."
        )
        fixes = (
            axes.set_thread_axis_fix(
                ctx,
                location,
                thread,
                label=f"Use the thread axis '{thread}'",
                summary=f"Set collective_axes=\"{thread}\" on the run_scoped call, re-define "
                "the code that holds it, then resume the failing cell.",
                safety=(
                    f"`{thread}` is the kernel's only axis, so it is the only name "
                    "collective_axes can hold here; the kernel's threads then share the "
                    "allocation, as Mosaic GPU requires for every scoped allocation in a "
                    "kernel with threads."
                ),
            ),
        )
        notes.append(axes.FRESH_NOTE)
    else:
        explanation = (
            f"The pl.run_scoped(...){where} shares its allocation along `{axis}`, which is "
            f"not among the GPU kernel's axes {axes_text}. Use the kernel's thread_name "
            "(the last of them); cluster axes cannot hold collective allocations."
        )
    return _entry.diagnosis(ctx, __name__, explanation, location=location, call_site=failing,
                            fixes=fixes, notes=notes, error=link.summary.splitlines()[0])
