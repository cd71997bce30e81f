"""Interpret mode from now on, one interpreter per kernel family.

JAX has one global interpret switch (``pallas_tpu_interpret_mode_context_manager``), and
every Pallas builder reads it as ``config.<switch>.value or interpret`` when a kernel is
built. Set to one interpreter, it runs every later kernel in that one: a TPU interpreter
asserts on a Triton-style GPU kernel's compiler parameters, plain ``interpret=True`` cannot
do a TPU kernel's remote copies. A session of several kernels needs each to get its own.

So while the mode is on, the switch's name in ``jax._src.config`` is a thin stand-in for
the real switch. The real one holds the session's default interpreter (so JAX's jit keys
and trace context see the mode is on, as before). When a builder reads ``.value`` and the
real switch still holds that default, the stand-in looks at the builder's own arguments
(its frame's locals: ``compiler_params``, ``mesh``, specs) and answers with the interpreter
of the kernel's family (``kernel_family``). Anything else set on the switch (a user's
``pltpu.force_tpu_interpret_mode()``, a one-off fix's mode) passes through untouched, and
every other attribute goes to the real switch.

Removing the stand-in (``uninstall``) puts the real switch object back under its name.
Where any of this is missing (no switch, a frame without locals), the default interpreter
is used: what a single-mode switch did.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jax_nbhelp.jaxapi import jax_probe, kernel_family

CONFIG_MODULE = "jax._src.config"
SWITCH_NAME = "pallas_tpu_interpret_mode_context_manager"


class _FamilySwitch:
    """Stands in for JAX's switch: the same object to everything but a builder's ``.value``."""

    def __init__(self, real: Any, default: Any, value_for: Callable[[str], Any]) -> None:
        self._real = real
        self._default = default
        self._value_for = value_for

    @property
    def value(self) -> Any:
        value = self._real.value
        if value is not self._default:
            return value
        try:
            names = sys._getframe(1).f_locals
            family = kernel_family.family_of_build(names)
            own = names.get("interpret")
        except Exception:  # a reader without a frame, or locals that do not read
            return value
        if own is not None and not isinstance(own, bool):
            return own  # the kernel asked for an interpreter's params of its own: keep them
        if not family:
            return value
        chosen = self._value_for(family)
        return value if chosen is None else chosen

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def __repr__(self) -> str:
        return f"<jax_nbhelp per-family stand-in for {self._real!r}>"


@dataclass
class _Installed:
    module: Any = None
    real: Any = None


_INSTALLED = _Installed()


def real_switch(switch: Any) -> Any:
    """JAX's own switch object behind ``switch`` (the stand-in, or the switch itself)."""
    return switch._real if isinstance(switch, _FamilySwitch) else switch


def install(default: Any, value_for: Callable[[str], Any]) -> bool:
    """Put the stand-in in place of the switch, answering builders by family; ``default``
    is the object the real switch holds while the mode is on. False: it cannot be done."""
    module = sys.modules.get(CONFIG_MODULE) if jax_probe.attribute(
        CONFIG_MODULE, SWITCH_NAME) is not None else None
    switch = getattr(module, SWITCH_NAME, None)
    if switch is None:
        return False
    real = real_switch(switch)
    setattr(module, SWITCH_NAME, _FamilySwitch(real, default, value_for))
    _INSTALLED.module, _INSTALLED.real = module, real
    return True


def uninstall() -> None:
    """Put JAX's own switch back under its name (a no-op when the stand-in is not there)."""
    module, real = _INSTALLED.module, _INSTALLED.real
    if module is not None and isinstance(getattr(module, SWITCH_NAME, None), _FamilySwitch):
        setattr(module, SWITCH_NAME, real)
    _INSTALLED.module = _INSTALLED.real = None
