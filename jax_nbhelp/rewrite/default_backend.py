"""Fix: stop asking for a backend the runtime does not have, and use the default one.

``jax.devices("tpu")``, ``jax.local_devices(backend="tpu")``, ``jax.device_count("gpu")``,
``jax.jit(f, backend="tpu")``: the platform argument goes, so JAX picks its default backend
(the accelerator when there is one, else the CPU).
"""

from __future__ import annotations

import libcst as cst

from ._args import drop_argument
from ._cst import dotted_name, locate, rewrite_calls
from .errors import CannotRewrite
from .magics import rewrite_line

__all__ = ["drop_backend", "drop_backend_python"]

# JAX functions whose first positional argument (or backend=) names a platform.
_POSITIONAL = frozenset({"devices", "local_devices", "device_count", "local_device_count"})
_KEYWORD_ONLY = frozenset({"jit", "pmap", "default_backend"})


def _platform_index(call: cst.Call, platform: str) -> int | None:
    """Index of the argument that names ``platform`` as a string literal, if any."""
    name = (dotted_name(call.func) or "").rsplit(".", 1)[-1]
    if name not in _POSITIONAL | _KEYWORD_ONLY:
        return None
    for index, arg in enumerate(call.args):
        is_backend = arg.keyword is not None and arg.keyword.value == "backend"
        first_positional = (index == 0 and arg.keyword is None and not arg.star
                            and name in _POSITIONAL)
        if not (is_backend or first_positional):
            continue
        value = arg.value
        if isinstance(value, cst.SimpleString) and (
            value.evaluated_value.lower() == platform.lower()
        ):
            return index
    return None


def drop_backend_python(source: str, lineno: int, platform: str) -> str:
    """Like :func:`drop_backend` for plain Python (no IPython syntax)."""
    located = locate(source, lineno)
    targets = [site.node for site in located.calls_at(lineno)
               if _platform_index(site.node, platform) is not None]
    if not targets:
        raise CannotRewrite(
            f"Line {lineno} does not name the platform {platform!r} as a string in a "
            "jax.devices/local_devices/device_count/jit call, so jax_nbhelp cannot tell which "
            "argument to remove."
        )

    def change(call: cst.Call) -> cst.Call:
        index = _platform_index(call, platform)
        return call if index is None else drop_argument(call, index)

    return rewrite_calls(located.module, targets, change).code


def drop_backend(source: str, lineno: int, platform: str) -> str:
    """Remove the ``platform`` argument from the JAX device calls on 1-based ``lineno``.

    Raises :class:`CannotRewrite`.
    """
    return rewrite_line(source, lineno, lambda code: drop_backend_python(code, lineno, platform))
