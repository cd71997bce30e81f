"""What the installed JAX can do for the run_scoped family's fixes, found by probing.

Every probe answers with the thing found or with a sentence saying why it is missing; none
raises. Fixes that need a missing capability are still listed, with that sentence as the
reason they cannot apply. Names and keywords move between releases (``InterpretGPUParams``
changed module in jax 0.10, ``plgpu.kernel`` renamed ``out_shape`` to ``out_type``), so code
that fixes generate is spelled from these answers, never from a version number.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from jax_nbhelp.jaxapi import jax_probe

MOSAIC_GPU_MODULE = "jax.experimental.pallas.mosaic_gpu"
TPU_MODULE = "jax.experimental.pallas.tpu"

# Where InterpretGPUParams lives, newest first (private API: it has no public home yet).
GPU_PARAMS_HOMES = (
    "jax._src.pallas.mosaic_gpu.interpret.params",
    "jax._src.pallas.mosaic.interpret.utils",
)
GPU_RESET_HOME = "jax._src.pallas.mosaic_gpu.interpret.interpret_pallas_call"


def jax_version() -> str:
    version = jax_probe.attribute("jax", "__version__")
    return version if isinstance(version, str) else "unknown"


def _import(module: str) -> Any | str:
    try:
        return importlib.import_module(module)
    except Exception as exc:
        return f"{module} cannot be imported here ({type(exc).__name__}: {exc})"


@dataclass(frozen=True)
class GpuInterpret:
    """How to run a Mosaic GPU kernel on CPU with this JAX."""

    params_module: str
    params_class: Any
    out_keyword: str
    scratch_keyword: str

    @property
    def import_line(self) -> str:
        return f"from {self.params_module} import InterpretGPUParams"


def _keywords(function: Any) -> frozenset[str] | None:
    try:
        return frozenset(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return None


def gpu_interpret() -> GpuInterpret | str:
    """The GPU kernel interpreter and ``plgpu.kernel``'s spelling, or why there is none."""
    for home in GPU_PARAMS_HOMES:
        params = jax_probe.attribute(home, "InterpretGPUParams")
        if params is not None:
            break
    else:
        return (
            f"this JAX ({jax_version()}) has no GPU kernel interpreter (InterpretGPUParams; "
            "it arrived in jax 0.9), so a GPU kernel with threads cannot run on CPU"
        )
    plgpu = _import(MOSAIC_GPU_MODULE)
    if isinstance(plgpu, str):
        return plgpu
    keywords = _keywords(getattr(plgpu, "kernel", None))
    if keywords is None:
        return f"this JAX ({jax_version()}) has no plgpu.kernel to run a GPU kernel with"
    missing = {"interpret", "num_threads", "thread_name"} - keywords
    if missing:
        return (
            f"plgpu.kernel in this JAX ({jax_version()}) does not take "
            f"{', '.join(sorted(missing))}=, so it cannot run in GPU interpret mode "
            "(jax 0.9 or newer can)"
        )
    out = "out_type" if "out_type" in keywords else "out_shape"
    scratch = "scratch_types" if "scratch_types" in keywords else "scratch_shapes"
    if out not in keywords:
        return f"plgpu.kernel in this JAX ({jax_version()}) takes neither out_type= nor out_shape="
    return GpuInterpret(home, params, out, scratch)


def interpret_switch() -> Any | str:
    """JAX's process-wide interpret-mode setting (what force_tpu_interpret_mode sets)."""
    state = jax_probe.attribute("jax._src.config", "pallas_tpu_interpret_mode_context_manager")
    if state is None or not all(hasattr(state, name) for name in ("swap_local", "set_local")):
        return (
            f"this JAX ({jax_version()}) has no interpret-mode switch "
            "(pallas_tpu_interpret_mode_context_manager, jax 0.7 or newer)"
        )
    return state


def tpu_interpret_params() -> Any | str:
    params = jax_probe.attribute(TPU_MODULE, "InterpretParams")
    if params is None:
        return f"this JAX ({jax_version()}) has no pltpu.InterpretParams (TPU interpret mode)"
    return params


def gpu_interpret_mode_reason() -> str | None:
    """Why a re-run in GPU interpret mode is impossible here, or None when it is possible."""
    found = gpu_interpret()
    if isinstance(found, str):
        return found
    switch = interpret_switch()
    return switch if isinstance(switch, str) else None


def tpu_interpret_mode_reason() -> str | None:
    params = tpu_interpret_params()
    if isinstance(params, str):
        return params
    switch = interpret_switch()
    return switch if isinstance(switch, str) else None


@contextmanager
def _switched(value: Any) -> Iterator[None]:
    switch = interpret_switch()
    if isinstance(switch, str):
        raise RuntimeError(switch)
    previous = switch.swap_local(value)
    try:
        yield
    finally:
        switch.set_local(previous)


def reset_gpu_interpreter() -> None:
    """Clear the GPU interpreter's state; JAX asks for this after a kernel failed in it."""
    reset = jax_probe.attribute(GPU_RESET_HOME, "reset_gpu_interpret_mode_state")
    if callable(reset):
        reset()


def clear_failed_gpu_interpreter() -> None:
    """After code failed (a cell, or a fix's run), no kernel is running: drop what a kernel
    that failed inside the GPU interpreter left in its process-wide memory. JAX cleans it
    only when a kernel ends normally, and a stale one makes the next GPU-interpreted kernel
    with another thread count fail with a bare AssertionError. Never imports the
    interpreter: where it was not imported, there is nothing to clear."""
    reset = getattr(sys.modules.get(GPU_RESET_HOME), "reset_gpu_interpret_mode_state", None)
    if callable(reset):
        reset()


@contextmanager
def gpu_interpret_mode() -> Iterator[None]:
    """Within the block, Pallas kernels run in GPU interpret mode (whatever interpret= says)."""
    found = gpu_interpret()
    if isinstance(found, str):
        raise RuntimeError(found)
    reset_gpu_interpreter()
    with _switched(found.params_class()):
        yield


TPU_INTERPRETER_HOME = "jax._src.pallas.mosaic.interpret.interpret_pallas_call"
NOT_INTERPRETED = (
    "no kernel ran in TPU interpret mode: the kernel was built (pl.kernel / pallas_call "
    "called) in a cell this fix did not re-run, and JAX reads the interpret setting when a "
    "kernel is built. Pass interpret=pltpu.InterpretParams() where the kernel is built"
)


@contextmanager
def _must_be_used(module_name: str, name: str, failure: str) -> Iterator[None]:
    """Raise ``failure`` after the block if ``module_name.name`` was never called in it.

    Guards runs whose result would otherwise look right while coming from another
    interpreter. When the function cannot be found, the block runs unchecked.
    """
    try:
        module = importlib.import_module(module_name)
    except Exception:
        module = None
    original = getattr(module, name, None)
    if module is None or not callable(original):
        yield
        return
    calls = 0

    def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        return original(*args, **kwargs)

    setattr(module, name, counted)
    try:
        yield
    finally:
        setattr(module, name, original)
    if calls == 0:
        raise RuntimeError(failure)


@contextmanager
def tpu_interpret_mode() -> Iterator[None]:
    """Within the block, Pallas kernels run in TPU interpret mode (whatever interpret= says).

    Raises after the block when no kernel ran in it: interpret=True can compute wrong values
    silently for TPU mesh kernels, so such a run must not pass for a verified fix.
    """
    params = tpu_interpret_params()
    if isinstance(params, str):
        raise RuntimeError(params)
    with _must_be_used(TPU_INTERPRETER_HOME, "interpret_pallas_call", NOT_INTERPRETED), \
            _switched(params()):
        yield


@contextmanager
def fresh_gpu_interpreter() -> Iterator[None]:
    """Reset the GPU interpreter before the block (after a kernel failed inside it)."""
    reset_gpu_interpreter()
    yield
