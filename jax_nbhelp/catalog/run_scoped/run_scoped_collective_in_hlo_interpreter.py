"""A collective ``run_scoped`` in a kernel run with ``interpret=True``.

``interpret=True`` is the HLO interpreter: it runs one program at a time and cannot share
an allocation between programs, so it refuses ``collective_axes``. Two stories lead here:

- a Mosaic GPU kernel with threads (``plgpu.kernel(..., num_threads=, thread_name=)``):
  plgpu.kernel itself wraps the body in a run_scoped shared by the threads, so the error
  names no line of the user's code. GPU interpret mode runs such kernels, threads and all.
- a TPU or grid kernel whose scratch the user marked collective: no TPU backend allocates
  collective scratch (Mosaic TPU rejects it too), so each program gets its own buffer.
"""

from __future__ import annotations

from jax_nbhelp.catalog import _entry
from jax_nbhelp.catalog import _run_scoped_family as family
from jax_nbhelp.catalog._example import (
    NEEDS_GPU_INTERPRETER,
    NO_CORE_AXES,
    Example,
    edited,
    per_core_kernel,
    scratch_kernel,
)
from jax_nbhelp.core.model import Diagnosis, Location
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match
from jax_nbhelp.jaxapi import capabilities

CODE = "JNH103"
TITLE = "Collective run_scoped in a kernel run with interpret=True"
MESSAGE = "run_scoped interpret rule does not support collective axes"

_IMPORTS = '''\
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
'''

_GRID_KERNEL = _IMPORTS + "\n" + scratch_kernel("add_one_kernel", "pltpu.VMEM", "core")

_GRID_CALL = (
    "out = pl.pallas_call(add_one_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),"
    " interpret=True)(jnp.ones((8, 128)))"
)

_GPU_KERNEL = '''\
import jax, jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu

def add_one(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1

add_one_gpu = plgpu.kernel(add_one, jax.ShapeDtypeStruct((8, 128), jnp.float32),
                           num_threads=2, thread_name="wg", interpret=True)
'''

_TPU_MESH_KERNEL = per_core_kernel("True", _IMPORTS.rstrip())

_TPU_MESH_CALL = "x = jnp.arange(2 * 8 * 128.0).reshape(2, 8, 128)\nout = kernel(x)"

EXAMPLES = (
    edited(_GRID_KERNEL, _GRID_CALL, "Remove collective_axes", "bool((out == 3).all())",
           NO_CORE_AXES),
    Example(setup=(_GPU_KERNEL,), failing="out = add_one_gpu(jnp.ones((8, 128)))",
            fix="Run in GPU interpret mode", check="bool((out == 2).all())",
            requires=NEEDS_GPU_INTERPRETER),
    edited(_TPU_MESH_KERNEL, _TPU_MESH_CALL, "Remove collective_axes, run in TPU interpret mode",
           "bool((out == x * 2 + 1).all())",
           NO_CORE_AXES, ("interpret=True", "interpret=pltpu.InterpretParams()")),
)

WHY = _entry.prose("""
interpret=True runs a kernel with the HLO interpreter, one program after another, and has no
way to hand the same buffer to several programs, so it refuses run_scoped's collective_axes.
Only Mosaic GPU shares scratch, and only between the threads of a plgpu.kernel; no TPU
backend or interpreter does.
""")

def _gpu_explanation(ctx: ErrorContext, location: Location | None) -> str:
    if location is not None:
        return (
            f"The collective pl.run_scoped(...) at {location.label} is in a Mosaic GPU kernel "
            "run with interpret=True, which cannot share one allocation between the threads."
        )
    failing = ctx.failing_cell()
    return (
        "A Mosaic GPU kernel with several threads (plgpu.kernel(..., num_threads=..., "
        "thread_name=...)) was run with interpret=True. plgpu.kernel allocates the kernel's "
        "scratch once for all its threads, with a collective run_scoped that JAX adds "
        "itself, so no line of your code is named: the kernel called "
        + (f"at {failing.label} " if failing is not None else "")
        + "cannot run in the HLO interpreter at all."
    )


MATCH = Match(MESSAGE)


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    location = family.operation_location(ctx)
    failing = ctx.failing_cell()
    notes: list[str] = []
    if family.is_gpu_kernel(ctx, location):
        explanation = _gpu_explanation(ctx, location)
        fix = family.gpu_interpret_fix(ctx, location)
        notes.append(family.gpu_interpret_note())
    elif family.in_mesh_kernel(ctx):
        where = _entry.at(location)
        explanation = (
            f"The collective pl.run_scoped(...) call{where} is in a mesh kernel (pl.kernel or "
            "core_map) run with interpret=True. No TPU backend can share scratch between "
            "cores, and interpret=True does not model TPU meshes faithfully either."
        )
        fix = family.with_runtime(
            family.remove_collective_axes_fix(
                ctx,
                location,
                label="Remove collective_axes, run in TPU interpret mode",
                summary=(
                    "Delete collective_axes, re-define the code that holds it, then resume "
                    "the failing cell in TPU interpret mode."
                ),
                safety=(
                    "Each core gets its own scratch buffer, the only kind a TPU allocates, so "
                    "the result is what a TPU computes. TPU interpret mode is used because "
                    "interpret=True can silently compute zeros for TPU mesh kernels; to keep "
                    "the fix, pass interpret=pltpu.InterpretParams()."
                ),
            ),
            capabilities.tpu_interpret_mode,
            "Runs the statements below with JAX's interpret-mode switch set to "
            "pltpu.InterpretParams(), then restores it.",
            capabilities.tpu_interpret_mode_reason(),
        )
        notes.append(
            "jax 0.10 reads the interpret setting when pl.kernel is built, so the kernel must "
            "be built by a statement the fix runs; if no kernel ran in TPU interpret mode, the "
            "fix says so instead of passing."
        )
    else:
        where = _entry.at(location)
        explanation = (
            f"The collective pl.run_scoped(...) call{where} is in a kernel run with "
            "interpret=True, which gives every program its own scratch and refuses "
            "collective_axes."
        )
        fix = family.remove_collective_axes_fix(
            ctx,
            location,
            safety=(
                "Each program gets its own scratch buffer: the only kind TPU backends "
                "allocate, and the same values whenever a program reads only what it wrote. "
                "Programs that pass data to each other through the scratch need another "
                "design (a shared output buffer or semaphores)."
            ),
        )
        notes.append(
            "If this is a Mosaic GPU kernel whose threads share the scratch, keep "
            "collective_axes and run it in GPU interpret mode instead."
        )
    return _entry.diagnosis(ctx, __name__, explanation, location=location, call_site=failing,
                            fixes=(fix,), notes=notes)
