"""What the run_scoped diagnoses share: where the allocation was made, which kind of kernel
ran it, and the fixes they build the same way.

Kernel kinds are read from the traceback's library frames (``pallas/mpmd.py`` runs mesh
kernels: ``pl.kernel``, ``core_map``, ``plgpu.kernel``; ``pallas/mosaic_gpu/`` is the GPU
backend's own code) and from the user's source (a Mosaic GPU module alias, ``num_threads=``).
"""

from __future__ import annotations

import re
from dataclasses import replace

from jax_nbhelp.core.model import Fix, Location, RuntimeWrapper
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.fix.fix_builders import rerun_fix, rewrite_fix
from jax_nbhelp.jaxapi import capabilities
from jax_nbhelp.jaxapi.capabilities import MOSAIC_GPU_MODULE

TRACE_LINK = "JaxStackTraceBeforeTransformation"


def _posix(path: str) -> str:
    return path.replace("\\", "/")


def operation_link(ctx: ErrorContext) -> Link | None:
    """The link holding the traceback of the line that created the failing operation."""
    for link in ctx.chain[1:]:
        if link.is_a(TRACE_LINK) or link.type_name == TRACE_LINK:
            return link
    return None


def operation_location(ctx: ErrorContext) -> Location | None:
    """The user's line that made the failing operation (None when JAX itself made it)."""
    link = operation_link(ctx)
    if link is None:
        return ctx.deepest_user_location()
    frames = link.user_frames
    return frames[-1].location if frames else None


def made_by_mosaic_gpu(ctx: ErrorContext) -> bool:
    """The failing run_scoped is plgpu.kernel's own (threads share the kernel's scratch)."""
    link = operation_link(ctx)
    if link is None or link.user_frames:
        return False
    return any("/pallas/mosaic_gpu/" in _posix(frame.filename) for frame in link.frames)


def in_mesh_kernel(ctx: ErrorContext) -> bool:
    """The kernel is a mesh kernel (pl.kernel, core_map, plgpu.kernel), not a grid pallas_call:
    JAX's frames say so (kernel_facts), or a frame of its mesh-kernel module (pallas/mpmd.py on
    0.9 and newer; 0.8 has no such module)."""
    facts = ctx.kernel
    if facts is not None and facts.mesh_kernel:
        return True
    return any(
        _posix(frame.filename).endswith("/pallas/mpmd.py")
        for link in ctx.chain
        for frame in link.frames
    )


_THREADS = re.compile(r"\b(num_threads|thread_name)\s*=")


def mentions_mosaic_gpu(ctx: ErrorContext, *locations: Location | None) -> bool:
    """The user's code at these places uses Mosaic GPU (its module or thread keywords)."""
    alias = ctx.alias(MOSAIC_GPU_MODULE)
    for location in locations:
        if location is None:
            continue
        text = location.source or location.line
        if "mosaic_gpu" in text or _THREADS.search(text):
            return True
        if alias is not None and re.search(rf"\b{re.escape(alias)}\.", text):
            return True
    return False


REMOVE_SUMMARY = ("Delete collective_axes from the run_scoped call, re-define the code that "
                  "holds it, then resume the failing cell.")


_TPU_SPACES = r"(VMEM|SMEM|VMEM_SHARED|HBM|SemaphoreType)"


def allocation_kind(ctx: ErrorContext, location: Location | None) -> str | None:
    """"gpu" or "tpu" when the run_scoped call at ``location`` allocates that backend's
    memory (read from its source text), else None."""
    from jax_nbhelp.fix.interpreted_kernel import allocates_gpu_memory
    from jax_nbhelp.rewrite import CannotRewrite
    from jax_nbhelp.rewrite.collective_call import collective_call_at

    if location is None or location.source is None:
        return None
    try:
        text = collective_call_at(location.source, location.lineno).text
    except (CannotRewrite, ValueError):
        return None
    if allocates_gpu_memory(text, ctx.alias(MOSAIC_GPU_MODULE)):
        return "gpu"
    tpu = ctx.alias(capabilities.TPU_MODULE)
    if re.search(rf"\bpallas\.tpu\.{_TPU_SPACES}\b", text) or (
        tpu is not None and re.search(rf"\b{re.escape(tpu)}\.{_TPU_SPACES}\b", text)
    ):
        return "tpu"
    return None


def is_gpu_kernel(ctx: ErrorContext, location: Location | None) -> bool:
    """Whether the failing run_scoped belongs to a Mosaic GPU kernel (threads share it)."""
    if made_by_mosaic_gpu(ctx):
        return True
    kind = allocation_kind(ctx, location)
    if kind is not None:
        return kind == "gpu"
    return location is not None and mentions_mosaic_gpu(ctx, location, ctx.failing_cell())


def remove_collective_axes_fix(
    ctx: ErrorContext,
    location: Location | None,
    *,
    safety: str,
    label: str = "Remove collective_axes",
    summary: str = REMOVE_SUMMARY,
) -> Fix:
    def transform(source: str) -> str:
        from jax_nbhelp.rewrite import remove_collective_axes

        assert location is not None
        return remove_collective_axes(source, location.lineno)

    return rewrite_fix(ctx, location, transform, label=label, summary=summary, safety=safety,
                       safe=True)


def with_runtime(fix: Fix, runtime: RuntimeWrapper, description: str,
                 unavailable: str | None) -> Fix:
    """``fix`` (a rewrite) run inside ``runtime``; ``unavailable`` refuses it when set."""
    return replace(
        fix,
        runtime=runtime,
        runtime_description=description,
        unavailable=fix.unavailable or unavailable,
    )


def rerun_cells_fix(
    ctx: ErrorContext,
    first: Location | None,
    *,
    label: str,
    summary: str,
    safety: str,
    runtime: RuntimeWrapper,
    runtime_description: str,
    unavailable: str | None,
) -> Fix:
    """Re-run, unchanged and inside ``runtime``, the statement at ``first`` (with those that
    captured what it binds) and then the failing cell from the statement that raised.

    Kernels read interpret settings when they are built, so the statement that defines the
    kernel body (usually the one holding the run_scoped call) runs again too.
    """
    touch: dict[int, dict[int, str]] = {}
    if first is not None and first.kind == "cell" and first.cell is not None:
        touch = {first.cell: {first.lineno: "defines the kernel's code"}}
    return rerun_fix(
        ctx,
        label=label,
        summary=summary,
        safety=safety,
        safe=True,
        runtime=runtime,
        runtime_description=runtime_description,
        unavailable=unavailable,
        touch=touch,
    )


GPU_SAFETY = (
    "Same result as on a GPU: GPU interpret mode runs every thread of the kernel and gives "
    "them one shared allocation, as Mosaic GPU does. Your code is not changed; to keep it, "
    "pass interpret=InterpretGPUParams() to the kernel."
)


def gpu_interpret_fix(ctx: ErrorContext, location: Location | None) -> Fix:
    """Re-run the kernel (its definition, then the failing cell) in GPU interpret mode."""
    return rerun_cells_fix(
        ctx,
        location,
        label="Run in GPU interpret mode",
        summary="Re-run the kernel in GPU interpret mode, which simulates the GPU's threads.",
        safety=GPU_SAFETY,
        runtime=capabilities.gpu_interpret_mode,
        runtime_description=(
            "Runs the statements below unchanged with JAX's interpret-mode switch set to "
            "InterpretGPUParams() (it overrides interpret=), then restores the switch."
        ),
        unavailable=capabilities.gpu_interpret_mode_reason(),
    )


def gpu_interpret_note() -> str:
    """How to keep GPU interpret mode in the code, spelled for the installed JAX."""
    found = capabilities.gpu_interpret()
    if isinstance(found, str):
        return f"GPU interpret mode is not available here: {found}."
    return (
        "To keep the fix, pass interpret=InterpretGPUParams() to the kernel, after "
        f"`{found.import_line}` (a private module in this JAX, {capabilities.jax_version()}; "
        "it has moved between releases). Do not drop collective_axes or num_threads: the "
        "threads must share the allocation."
    )
