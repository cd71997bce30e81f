"""A collective ``run_scoped`` in a kernel run in TPU interpret mode.

TPU interpret mode (``interpret=pltpu.InterpretParams()``) simulates TPU cores, and a TPU
core's scratch memory is its own: no TPU backend allocates scratch shared between cores
(Mosaic TPU refuses collective run_scoped as well), so the interpreter refuses it.
"""

from __future__ import annotations

from jax_nbhelp.catalog import _entry
from jax_nbhelp.catalog import _run_scoped_family as family
from jax_nbhelp.catalog._example import NO_CORE_AXES, edited, per_core_kernel
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match

CODE = "JNH104"
TITLE = "Collective run_scoped in a kernel run in TPU interpret mode"
MESSAGE = "run_scoped_p with collective axes is not supported"

_KERNEL = per_core_kernel("pltpu.InterpretParams()")

_CALL = "x = jnp.arange(2 * 8 * 128.0).reshape(2, 8, 128)\nout = kernel(x)"

EXAMPLES = (edited(_KERNEL, _CALL, "Remove collective_axes", "bool((out == x * 2 + 1).all())",
                   NO_CORE_AXES),)

WHY = _entry.prose("""
TPU interpret mode simulates TPU cores, and each core's VMEM and SMEM belong to that core
alone. No TPU backend can hand one scratch buffer to several cores (Mosaic TPU refuses
collective run_scoped as well), so the interpreter refuses collective_axes.
""")


MATCH = Match(MESSAGE)


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    location = family.operation_location(ctx)
    failing = ctx.failing_cell()
    where = _entry.at(location)
    explanation = (
        f"The collective pl.run_scoped(...) call{where} ran in TPU interpret mode, which gives "
        "each core its own scratch memory and refuses collective_axes."
    )
    notes = [
        "To pass data between cores, write it to an output or HBM buffer and synchronise "
        "with semaphores (or remote DMAs between devices); a shared scratch buffer does not "
        "exist on TPU."
    ]
    if family.is_gpu_kernel(ctx, location):
        # A GPU kernel run by the TPU interpreter: its threads really share the scratch.
        explanation += (
            " The code uses Mosaic GPU, whose threads share such an allocation: it needs the "
            "GPU interpreter, not the TPU one."
        )
        notes = [family.gpu_interpret_note()]
        fix = family.gpu_interpret_fix(ctx, location)
    else:
        fix = family.remove_collective_axes_fix(
            ctx,
            location,
            safety=(
                "Each core gets its own scratch buffer, the only kind a TPU has, so the result "
                "is what a TPU computes; values are the same whenever a core reads only what "
                "it wrote itself."
            ),
        )
    return _entry.diagnosis(ctx, __name__, explanation, location=location, call_site=failing,
                            fixes=(fix,), notes=notes)
