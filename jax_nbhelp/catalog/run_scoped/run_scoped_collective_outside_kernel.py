"""A collective ``pl.run_scoped`` lowered by XLA, outside any Pallas kernel.

Typical story: a kernel helper that allocates scratch with ``collective_axes=`` is tested
under plain ``jax.jit``. Only a Pallas backend can honour collective axes, so XLA's lowering
rule refuses them.
"""

from __future__ import annotations

from jax_nbhelp.catalog import _entry
from jax_nbhelp.catalog._example import (
    GPU_PRELUDE,
    NEEDS_GPU_INTERPRETER,
    NO_CORE_AXES,
    Example,
    edit,
    edited,
    scoped_helper,
)
from jax_nbhelp.catalog._run_scoped_family import REMOVE_SUMMARY
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.fix import one_program
from jax_nbhelp.fix.fix_builders import rerun_fix, rewrite_fix

CODE = "JNH101"
TITLE = "Collective run_scoped compiled outside a Pallas kernel"
MESSAGE = "run_scoped lowering outside of Pallas does not support collective_axes"

_HELPER = scoped_helper("scaled", axes="core")

# A Mosaic GPU helper: inside plgpu.kernel its threads share the SMEM scratch.
_GPU_HELPER = scoped_helper("shared_scale", "plgpu.SMEM", "wg", prelude=GPU_PRELUDE)

# A notebook's state: the helper's cell loads data first, the failing cell counts a step
# first. The fix re-defines only the helper and resumes at the call.
_STATEFUL_HELPER = _HELPER.replace(
    "\ndef scaled", "\nLOADS += 1\nDATA = jnp.full((8, 128), 1.0)\n\ndef scaled", 1)
_STATEFUL_CALL = "step += 1\nout = jax.jit(scaled)(DATA * step)"
_STATEFUL_CHECK = "step == 1 and LOADS == 1 and bool((out == 3).all())"

_CALL = "out = jax.jit(scaled)(jnp.ones((8, 128)))"
_THREE = "bool((out == 3).all())"

EXAMPLES = (
    Example(setup=("step = 0\nLOADS = 0", _STATEFUL_HELPER), failing=_STATEFUL_CALL,
            fix="Remove collective_axes", check=_STATEFUL_CHECK,
            fixed=("step = 0\nLOADS = 0", edit(_STATEFUL_HELPER, NO_CORE_AXES), _STATEFUL_CALL)),
    edited(_HELPER, _CALL, "Remove collective_axes", _THREE, NO_CORE_AXES),
    Example(setup=(_HELPER,), failing=_CALL, fix="Run as one program", check=_THREE),
    Example(setup=(_GPU_HELPER,), failing="out = jax.jit(shared_scale)(jnp.ones((8, 128)))",
            fix="Run in an interpreted kernel", check=_THREE, requires=NEEDS_GPU_INTERPRETER),
)

WHY = _entry.prose("""
collective_axes asks every program along a kernel's mesh axis to share one allocation. Under
plain jax.jit there is no kernel and no such axis, only one program, so XLA (which compiles
everything outside Pallas kernels) refuses it.
""")

GPU_NOTE = (
    "Inside a plgpu.kernel with num_threads > 1, keep collective_axes: there every thread "
    "must share the allocation. Test such a helper inside the kernel (GPU interpret mode), "
    "not under plain jit."
)


def _gpu_kernel_fixes(ctx: ErrorContext, location: Location | None) -> tuple[Fix, ...]:
    """"Run in an interpreted kernel", for a helper that allocates Mosaic GPU memory."""
    from jax_nbhelp.fix.interpreted_kernel import interpreted_kernel_fix

    fix = interpreted_kernel_fix(ctx, location)
    return (fix,) if fix is not None else ()


TRIGGERS = (MESSAGE,)


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    link = ctx.find(MESSAGE)
    if link is None or link.is_a("JaxRuntimeError"):
        # The message inside a run-time error comes from a kernel interpreter's callback:
        # JNH106 (a jitted helper inside an interpreted GPU kernel).
        return None
    location = ctx.deepest_user_location()
    call_site = ctx.call_site()
    where = _entry.at(location)
    reached = (
        f", reached from {call_site.label}"
        if call_site is not None and call_site != location
        else ""
    )
    explanation = (
        f"The pl.run_scoped(..., collective_axes=...) call{where}{reached} was compiled by "
        "XLA as ordinary JAX code, not inside a Pallas kernel. Only a kernel can share an "
        "allocation between programs, so compilation stopped."
    )
    one_program_fix = rerun_fix(
        ctx,
        label="Run as one program",
        summary=("Resume the failing cell with run_scoped's collective axes ignored, this "
                 "run only."),
        safety=(
            "Same result: outside a kernel there is one program, so a shared allocation is "
            "simply a private one. Your code is not changed: later runs fail again until you "
            "remove collective_axes. JAX's compilation caches are cleared after the run."
        ),
        safe=True,
        runtime=one_program.collective_axes_ignored,
        runtime_description=(
            "Runs the statements below unchanged while XLA lowers run_scoped as if "
            "collective_axes=() (one program), then restores JAX's rule and clears its caches."
        ),
        unavailable=one_program.unavailable_reason(),
    )

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite import remove_collective_axes

        assert location is not None
        return remove_collective_axes(source, location.lineno)

    remove_fix = rewrite_fix(
        ctx,
        location,
        transform,
        label="Remove collective_axes",
        summary=REMOVE_SUMMARY,
        safety="Same result outside a kernel (but see the note on multi-thread GPU kernels).",
        safe=True,
    )
    return _entry.diagnosis(ctx, __name__, explanation, location=location, call_site=call_site,
                            fixes=(one_program_fix, remove_fix, *_gpu_kernel_fixes(ctx, location)),
                            notes=(GPU_NOTE,))
