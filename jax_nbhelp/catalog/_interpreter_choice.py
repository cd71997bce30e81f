"""Which interpreter fits a failing kernel: the choice the diagnoses of a kernel compiled
for the CPU (JNH201) and of a kernel given the wrong interpreter (JNH205) make, before the
fix layer builds the fixes that switch it on (``fix/interpret_fixes.py``).

The interpreter is chosen from what JAX held about the kernel (``ctx.kernel``: its mesh,
memory spaces, primitives), and only when that is missing from the user's source.
"""

from __future__ import annotations

from dataclasses import dataclass

from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.fix.interpret_fixes import is_gpu_site
from jax_nbhelp.fix.kernel_cells import KernelPlan
from jax_nbhelp.jaxapi.interpret_modes import Mode

_TPU_WORDS = ("create_tensorcore_mesh", "core_map", "async_copy", "sync_copy",
              "SemaphoreType", "VMEM", "SMEM", "ANY", "HBM")


@dataclass(frozen=True)
class Choice:
    """The interpreter that fits the kernel (None: none does), and why, in the user's terms."""

    mode: Mode | None
    reasons: tuple[str, ...]
    from_source: bool = False  # JAX's own view of the kernel was not available


def choose(ctx: ErrorContext, plan: KernelPlan) -> Choice:
    """The interpreter for the failing kernel. Never plain interpret=True for a mesh kernel."""
    facts = ctx.kernel
    if facts is not None:
        family = facts.family
        if facts.triton and family == "generic":
            return Choice("hlo", ("it has Triton compiler parameters (the CompilerParams of "
                                  "jax.experimental.pallas.triton)",))
        if family == "gpu":
            return Choice("gpu", facts.gpu_evidence)
        if family == "tpu":
            return Choice("tpu", facts.tpu_evidence)
        if family == "mixed":
            return Choice(None, facts.tpu_evidence + facts.gpu_evidence)
        if facts.mesh_kernel:
            return Choice("tpu", (f"it runs over a mesh ({facts.mesh or 'pl.kernel/core_map'})",))
        if any(site.is_mesh_kernel and not is_gpu_site(site, ctx) for site in plan.sites):
            return Choice("tpu", ("the code it runs also builds kernels over a TPU mesh",))
        return Choice("hlo", ("it is a grid kernel with no TPU- or GPU-only features",))
    return _choose_from_source(ctx, plan)


def _choose_from_source(ctx: ErrorContext, plan: KernelPlan) -> Choice:
    frames = [frame for link in ctx.chain for frame in link.frames]
    if any(is_gpu_site(site, ctx) for site in plan.sites) or any(
        "mosaic_gpu" in frame.filename for frame in frames
    ):
        return Choice("gpu", ("it is built with plgpu.kernel (Mosaic GPU)",), from_source=True)
    texts = [site.text for site in plan.sites]
    if any(site.is_mesh_kernel for site in plan.sites) or any(
        word in text for text in texts for word in _TPU_WORDS
    ) or any(frame.function == "core_map" for frame in frames):
        return Choice("tpu", ("its code uses TPU meshes, memory or copies",), from_source=True)
    if plan.sites:
        return Choice("hlo", ("it is a pallas_call grid kernel",), from_source=True)
    # Unknown kernel: TPU interpret fails loudly where interpret=True may return zeros.
    return Choice(
        "tpu",
        ("jax_nbhelp could not see the kernel; TPU interpret mode checks the most and fails "
         "loudly where plain interpret=True could silently compute zeros",),
        from_source=True,
    )
