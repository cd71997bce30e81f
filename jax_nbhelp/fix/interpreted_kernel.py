"""The "Run in an interpreted kernel" fix for a Mosaic GPU helper tested under plain jit.

A helper that allocates Mosaic GPU memory (``plgpu.SMEM``, ``GMEM``, barriers) with
``collective_axes=`` is meant for a ``plgpu.kernel`` whose threads share that allocation.
Dropping the axes lets it compile under jit, but tests something else: each thread with its
own buffer. This fix runs the helper where it belongs, inside a two-thread GPU kernel whose
thread axis is the collective axis, in GPU interpret mode, so the sharing is exercised.

The generated code is spelled for the installed JAX (where ``InterpretGPUParams`` lives,
``out_type=`` or ``out_shape=``); without a GPU interpreter the fix says why it cannot run.
"""

from __future__ import annotations

import re

from jax_nbhelp.core.model import Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.fix.fix_builders import NOT_A_CELL, refused_fix, rewrite_fix
from jax_nbhelp.jaxapi import capabilities

LABEL = "Run in an interpreted kernel"
RUNNER = "run_in_gpu_kernel"
NUM_THREADS = 2

# Mosaic GPU allocations (TPU has its own SMEM, so the module must be Mosaic GPU's).
_GPU_SPACES = r"(SMEM|GMEM|Barrier|ClusterBarrier|TMEM)"


def allocates_gpu_memory(call_text: str, gpu_alias: str | None) -> bool:
    """Whether the run_scoped call's text allocates Mosaic GPU memory spaces."""
    if re.search(rf"\bmosaic_gpu\.{_GPU_SPACES}\b", call_text):
        return True
    return gpu_alias is not None and bool(
        re.search(rf"\b{re.escape(gpu_alias)}\.{_GPU_SPACES}\b", call_text)
    )


def runner_source(gpu: capabilities.GpuInterpret) -> str:
    """Code defining ``run_in_gpu_kernel`` for the installed JAX."""
    return f'''\
# Added by jax_nbhelp: run a function inside a {NUM_THREADS}-thread Mosaic GPU kernel whose \
threads
# share its collective allocations, on CPU in GPU interpret mode (spelled for jax \
{capabilities.jax_version()}).
def {RUNNER}(f, thread_axis, num_threads={NUM_THREADS}):
    import jax
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import mosaic_gpu as plgpu
    {gpu.import_line}

    def kernel(out_type, body):
        return plgpu.kernel(body, {gpu.out_keyword}=out_type, num_threads=num_threads,
                            thread_name=thread_axis, interpret=InterpretGPUParams())

    def run(*args):
        found = []  # the result types, traced inside a kernel so thread_axis is bound

        def probe(*in_refs):
            found.append(jax.eval_shape(lambda: f(*(ref[...] for ref in in_refs))))

        jax.eval_shape(kernel((), probe), *args)
        out_types, tree = jax.tree.flatten(found[0])

        def body(*refs):
            results = jax.tree.leaves(f(*(ref[...] for ref in refs[:len(args)])))

            @pl.when(jax.lax.axis_index(thread_axis) == 0)
            def _():
                for ref, value in zip(refs[len(args):], results):
                    ref[...] = value

        return jax.tree.unflatten(tree, kernel(tuple(out_types), body)(*args))

    return run


'''


def _refused(reason: str) -> Fix:
    return refused_fix(LABEL, _SUMMARY, _SAFETY, reason)


_SUMMARY = (
    "Call the helper inside a 2-thread plgpu.kernel whose thread axis is the collective axis, "
    "in GPU interpret mode."
)
_SAFETY = (
    "Computes what the GPU kernel computes: both threads run the helper and share its "
    "allocation, as collective_axes asks; thread 0 writes the result. It tests the helper "
    "on CPU; it is not how to run it fast."
)


def interpreted_kernel_fix(ctx: ErrorContext, location: Location | None) -> Fix | None:
    """The fix for a Mosaic GPU helper, None when the helper is not one. Never raises."""
    try:
        return _interpreted_kernel_fix(ctx, location)
    except Exception:
        ctx.session.failures.record(f"fix {LABEL!r}")
        return None


def _interpreted_kernel_fix(ctx: ErrorContext, location: Location | None) -> Fix | None:
    from jax_nbhelp.rewrite import CannotRewrite
    from jax_nbhelp.rewrite.collective_call import collective_call_at

    if location is None or location.source is None:
        return None
    try:
        call = collective_call_at(location.source, location.lineno)
    except CannotRewrite:
        return None
    if not allocates_gpu_memory(call.text, ctx.alias(capabilities.MOSAIC_GPU_MODULE)):
        return None
    if call.axes is None or len(call.axes) != 1:
        return _refused(
            "collective_axes is not one axis name written as a string, so jax_nbhelp cannot "
            "tell which axis the kernel's threads should have"
        )
    (axis,) = call.axes
    gpu = capabilities.gpu_interpret()
    if isinstance(gpu, str):
        return _refused(gpu)
    failing = ctx.failing_cell()
    if failing is None:
        return _refused(NOT_A_CELL)
    prelude = runner_source(gpu)

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.jit_to_gpu_kernel import jit_call_to_kernel

        assert failing is not None
        return jit_call_to_kernel(source, failing.lineno, RUNNER, axis, prelude)

    return rewrite_fix(
        ctx,
        failing,
        transform,
        label=LABEL,
        summary=(
            f"Call the helper inside a {NUM_THREADS}-thread plgpu.kernel whose thread axis is "
            f"{axis!r}, in GPU interpret mode."
        ),
        safety=_SAFETY,
        safe=True,
    )
