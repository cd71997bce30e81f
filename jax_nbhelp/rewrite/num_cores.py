"""Fix: give ``pltpu.create_tensorcore_mesh`` an explicit ``num_cores``.

Without ``num_cores`` (and without ``devices``) it asks ``jax.devices()[0].num_cores``; a CPU
device has no such attribute, so on a CPU runtime the call fails with an AttributeError that
has no message. ``num_cores=1`` builds a one-core mesh there.
"""

from __future__ import annotations

import libcst as cst

from ._cst import dotted_name, locate, rewrite_calls
from ._keywords import has_keyword, set_keyword
from .errors import CannotRewrite
from .magics import rewrite_line

__all__ = ["FUNCTION", "add_num_cores", "add_num_cores_python"]

FUNCTION = "create_tensorcore_mesh"


def _is_mesh_call(call: cst.Call) -> bool:
    return (dotted_name(call.func) or "").rsplit(".", 1)[-1] == FUNCTION


def add_num_cores_python(source: str, lineno: int, num_cores: int = 1) -> str:
    """Like :func:`add_num_cores` for plain Python (no IPython syntax)."""
    located = locate(source, lineno)
    targets = [site.node for site in located.calls_at(lineno) if _is_mesh_call(site.node)]
    if not targets:
        raise CannotRewrite(f"Line {lineno} has no {FUNCTION}(...) call to give num_cores= to.")
    for call in targets:
        if has_keyword(call, "devices") or (len(call.args) > 1 and call.args[1].keyword is None):
            raise CannotRewrite(
                f"The {FUNCTION} call on line {lineno} passes devices, which cannot be combined "
                "with num_cores. A CPU device has no TensorCores: drop devices and pass "
                "num_cores=1."
            )
    value = cst.Integer(str(num_cores))
    return rewrite_calls(
        located.module, targets, lambda call: set_keyword(call, "num_cores", value)
    ).code


def add_num_cores(source: str, lineno: int, num_cores: int = 1) -> str:
    """Give the ``create_tensorcore_mesh`` call at 1-based ``lineno`` ``num_cores=num_cores``.

    ``source`` is a notebook cell (IPython syntax allowed) or a module. Raises
    :class:`CannotRewrite`.
    """
    return rewrite_line(source, lineno, lambda code: add_num_cores_python(code, lineno, num_cores))
