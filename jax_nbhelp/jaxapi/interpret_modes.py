"""Pallas interpret modes: which one fits a kernel, whether this JAX has it, how to switch it on.

There are three interpreters, and each fits different kernels (measured on jax 0.10.2):

- ``interpret=True``, the HLO interpreter: plain grid kernels. It runs ``core_map`` over a
  TPU mesh without complaint and returns zeros, so it is never chosen for TPU meshes.
- ``pltpu.InterpretParams()``: TPU kernels (TPU meshes, core_map, DMAs, semaphores, VMEM).
  It rejects GPU memory (``KeyError: GMEM``).
- GPU interpret params (``InterpretGPUParams``, private, its module moved between releases):
  Mosaic GPU kernels. It rejects TPU meshes (``Unsupported mesh type``) and TPU memory.

The global switch, ``jax._src.config.pallas_tpu_interpret_mode_context_manager``, overrides
any ``interpret=`` and is read when a ``pallas_call``/``pl.kernel`` callable is BUILT, so a
runtime fix must rebuild kernels built in earlier cells under it (see ``kernel_cells``).

Everything is probed, nothing is assumed from a version number, and nothing here initialises
an accelerator: the backend is read from what JAX has already set up.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

from jax_nbhelp.jaxapi import family_switch, grid_progress, jax_probe, kernel_family

Mode = Literal["hlo", "tpu", "gpu"]

# Where InterpretGPUParams has lived (newest first): 0.10 moved it out of the TPU package.
GPU_PARAMS_HOMES: tuple[str, ...] = (
    "jax._src.pallas.mosaic_gpu.interpret.params",
    "jax._src.pallas.mosaic.interpret.utils",
)
TPU_PARAMS_HOME = "jax.experimental.pallas.tpu"
SWITCH_HOME = ("jax._src.config", "pallas_tpu_interpret_mode_context_manager")


@dataclass(frozen=True)
class ModeInfo:
    """How to name a mode to a user and in code."""

    mode: Mode
    name: str  # for sentences: "TPU interpret mode"
    code: str  # the interpret= value as the user would write it (with the usual aliases)


# Where each interpreter's code lives in JAX's source tree.
_INTERPRETER_FILES: dict[str, Mode] = {
    "/pallas/mosaic_gpu/interpret/": "gpu",
    "/pallas/mosaic/interpret/": "tpu",
}


def raising_interpreter(filenames: Sequence[str]) -> Mode | None:
    """The interpreter whose code raised ("tpu" or "gpu"), from a traceback's filenames,
    outermost first: the innermost interpreter frame wins."""
    for filename in reversed(filenames):
        path = filename.replace("\\", "/")
        for marker, mode in _INTERPRETER_FILES.items():
            if marker in path:
                return mode
    return None


def describe(mode: Mode) -> ModeInfo:
    if mode == "hlo":
        return ModeInfo(mode, "plain interpret mode", "True")
    if mode == "tpu":
        return ModeInfo(mode, "TPU interpret mode", "pltpu.InterpretParams()")
    return ModeInfo(mode, "GPU interpret mode", "InterpretGPUParams()")


def gpu_params_home() -> str | None:
    """The module that defines InterpretGPUParams in this JAX, or None."""
    for home in GPU_PARAMS_HOMES:
        if jax_probe.attribute(home, "InterpretGPUParams") is not None:
            return home
    return None


def _plgpu_kernel_takes_interpret() -> bool:
    kernel = jax_probe.attribute("jax.experimental.pallas.mosaic_gpu", "kernel")
    if kernel is None:
        return False
    try:
        return "interpret" in inspect.signature(kernel).parameters
    except (TypeError, ValueError):
        return False


def params_unavailable(mode: Mode) -> str | None:
    """Why this JAX cannot run ``mode``, or None when it can."""
    if mode == "hlo":
        return None
    if mode == "tpu":
        if jax_probe.attribute(TPU_PARAMS_HOME, "InterpretParams") is None:
            return ("this JAX has no TPU interpret mode (pltpu.InterpretParams, added in "
                    "jax 0.6.2); upgrade JAX to run this kernel on a CPU")
        return None
    if gpu_params_home() is None:
        return ("this JAX has no GPU interpret mode (InterpretGPUParams, added in jax 0.8.2); "
                "upgrade JAX to run Mosaic GPU kernels on a CPU")
    if not _plgpu_kernel_takes_interpret():
        return ("this JAX's plgpu.kernel takes no interpret= argument (GPU interpret mode "
                "works with plgpu.kernel from jax 0.9.0); upgrade JAX")
    return None


def _switch() -> Any:
    # JAX's own switch, also while the per-family stand-in holds its name (family_switch)
    switch = family_switch.real_switch(jax_probe.attribute(*SWITCH_HOME))
    if switch is None or not hasattr(switch, "swap_local") or not hasattr(switch, "set_local"):
        return None
    return switch


def switch_unavailable() -> str | None:
    """Why this JAX has no global interpret switch, or None when it has one."""
    if _switch() is None:
        return ("this JAX has no global interpret switch (pallas_tpu_interpret_mode_"
                "context_manager, added in jax 0.7.0); use the fix that edits interpret=")
    return None


def params_value(mode: Mode) -> Any:
    """A fresh interpret= value for ``mode`` (raises RuntimeError when unavailable)."""
    reason = params_unavailable(mode)
    if reason is not None:
        raise RuntimeError(reason)
    if mode == "hlo":
        return True
    if mode == "tpu":
        # the per-step hook lets a running fix show its grid steps (grid_progress)
        return grid_progress.with_recorder(
            jax_probe.attribute(TPU_PARAMS_HOME, "InterpretParams")())
    home = gpu_params_home()
    assert home is not None
    return jax_probe.attribute(home, "InterpretGPUParams")()


def _swap(mode: Mode) -> tuple[Any, Any]:
    """Set the switch to ``mode``: the switch and the value it had (RuntimeError: cannot)."""
    reason = switch_unavailable() or params_unavailable(mode)
    if reason is not None:
        raise RuntimeError(reason)
    switch = _switch()
    return switch, switch.swap_local(params_value(mode))


@contextmanager
def interpret_switch(mode: Mode) -> Iterator[None]:
    """Within the block, every Pallas kernel BUILT (or traced) runs under ``mode``."""
    switch, previous = _swap(mode)
    try:
        yield
    finally:
        switch.set_local(previous)


@dataclass
class _Session:
    """The interpret mode a fix switched on for the rest of this kernel, and what it replaced."""

    mode: Mode | None = None
    previous: Any = None
    per_family: bool = False  # each kernel family gets its own interpreter (family_switch)


SESSION = _Session()


def family_mode(family: str, default: Mode) -> Mode:
    """The interpreter for a kernel family while a mode is on "from now on"; ``default`` for
    a kernel of no family (a plain grid kernel) or whose interpreter this JAX lacks."""
    mode: Mode = kernel_family.INTERPRETER.get(family, default)  # type: ignore[assignment]
    return default if params_unavailable(mode) is not None else mode


def _value_for(default: Mode) -> Any:
    values: dict[str, Any] = {}

    def value_for(family: str) -> Any:
        if family not in values:
            mode = family_mode(family, default)
            values[family] = None if mode == default else params_value(mode)
        return values[family]
    return value_for


@contextmanager
def interpret_switch_from_now_on(mode: Mode) -> Iterator[None]:
    """Like ``interpret_switch``, but when the block succeeds the switch stays on, for every
    kernel built from now on in this kernel process (``switch_off`` restores it), and each
    kernel gets the interpreter of its family: ``mode`` is for kernels of no family."""
    switch, previous = _swap(mode)
    default = switch.value
    per_family = family_switch.install(default, _value_for(mode))
    try:
        yield
    except BaseException:
        family_switch.uninstall()
        switch.set_local(previous)  # a fix that failed leaves nothing switched on
        if SESSION.mode is not None:  # an earlier "from now on" stays as it was
            _reinstate()
        raise
    if SESSION.mode is None:
        SESSION.previous = previous
    SESSION.mode, SESSION.per_family = mode, per_family


def _reinstate() -> None:
    """Put back the "from now on" mode that was on before a failed one (SESSION.mode)."""
    assert SESSION.mode is not None
    switch, _ = _swap(SESSION.mode)
    SESSION.per_family = family_switch.install(switch.value, _value_for(SESSION.mode))


def session_mode() -> Mode | None:
    """The mode switched on "from now on" (for kernels of no family), or None."""
    return SESSION.mode


def session_families() -> list[tuple[str, str]]:
    """While a mode is on: (kernels, the interpreter they get), one row per family, then the
    kernels of no family. Empty when none is on."""
    if SESSION.mode is None:
        return []
    default = SESSION.mode
    if not SESSION.per_family:
        return [("every Pallas kernel", describe(default).name)]
    rows = [(name, describe(family_mode(family, default)).name)
            for family, name in kernel_family.NAMES.items()]
    rows.append(("other kernels (a plain grid)", describe(default).name))
    return rows


def switch_off() -> Mode | None:
    """Turn off what ``interpret_switch_from_now_on`` left on; returns the mode it was."""
    mode = SESSION.mode
    if mode is None:
        return None
    family_switch.uninstall()
    switch = _switch()
    if switch is not None:
        switch.set_local(SESSION.previous)
    SESSION.mode, SESSION.previous, SESSION.per_family = None, None, False
    return mode


def session_note() -> str | None:
    """What a card says while a mode is on from now on."""
    if SESSION.mode is None:
        return None
    if not SESSION.per_family:
        return (f"{describe(SESSION.mode).name.capitalize()} is on for this kernel (a fix "
                "switched it on): every Pallas kernel built from now on is interpreted. "
                "`%jax_nbhelp interpret off` turns it off.")
    return ("Interpret mode is on for this kernel (a fix switched it on): every Pallas kernel "
            "built from now on runs in the interpreter of its family ("
            + "; ".join(f"{kernels}: {name}" for kernels, name in session_families())
            + "). `%jax_nbhelp interpret off` turns it off.")


def switch_value() -> str:
    """The global switch as set now: "" when off (or absent), else tpu / gpu / True."""
    switch = _switch()
    value = getattr(switch, "value", None) if switch is not None else None
    if value is None or value is False:
        return ""
    name = type(value).__name__
    if "GPU" in name:
        return "gpu"
    if name == "InterpretParams":
        return "tpu"
    return str(value)


# ---- the backend, read without initialising anything ----------------------------------

_ACCELERATORS = {"tpu": "TPU", "cuda": "GPU", "rocm": "GPU", "gpu": "GPU", "metal": "GPU"}


def initialized_platforms() -> tuple[str, ...]:
    """Platforms JAX has already initialised in this process ("cpu", "tpu", "cuda", ...).

    Reads JAX's backend table; never calls ``jax.devices()``, which would start an
    accelerator the user may not have asked for. Empty when nothing is initialised (or this
    JAX keeps the table elsewhere).
    """
    if not jax_probe.jax_loaded():
        return ()
    table = jax_probe.attribute("jax._src.xla_bridge", "_backends")
    if not isinstance(table, dict):
        return ()
    return tuple(sorted(str(name) for name in list(table)))


def default_platform() -> str | None:
    """The platform of JAX's default backend if JAX has already chosen it, else None."""
    if not jax_probe.jax_loaded():
        return None
    backend = jax_probe.attribute("jax._src.xla_bridge", "_default_backend")
    platform = getattr(backend, "platform", None)
    return platform if isinstance(platform, str) else None


def platform_name(platform: str) -> str:
    """"TPU", "GPU" or "CPU" for a JAX platform name."""
    return _ACCELERATORS.get(platform, platform.upper())


def accelerators(platforms: tuple[str, ...]) -> tuple[str, ...]:
    """"TPU"/"GPU" for the accelerator platforms among ``platforms``."""
    return tuple(sorted({_ACCELERATORS[p] for p in platforms if p in _ACCELERATORS}))


def backend_sentence(platforms: tuple[str, ...]) -> str:
    """What the runtime has, and what interpret mode is for on it."""
    found = accelerators(platforms)
    if found:
        names = " and ".join(found)
        return (
            f"This runtime has a {names} (JAX has initialised {', '.join(platforms)}), but this "
            "kernel was compiled for the CPU: the computation was placed there (for example "
            "with jax.default_device, a device_put to a CPU device, or backend='cpu'). "
            "Interpret mode is a testing aid that simulates the kernel slowly on the CPU; "
            f"to run it on the {names}, keep the computation on the {names} instead."
        )
    if platforms:
        return (
            "This runtime has no TPU or GPU (JAX initialised only: "
            f"{', '.join(platforms)}), so interpret mode is the way to run the kernel here: "
            "it simulates the kernel on the CPU, slowly, for testing and debugging."
        )
    return (
        "Interpret mode simulates the kernel on the CPU, slowly, for testing and debugging; "
        "on a TPU or GPU runtime, run the kernel there instead."
    )
