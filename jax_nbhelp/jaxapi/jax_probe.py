"""Probes of the installed JAX: each returns None (or a reason) instead of raising.

JAX's Pallas internals move between releases, so fixes ask "does this exist?" here and are
not offered when the answer is no. Nothing here imports jax unless the user's program
already did (an error from JAX means it is loaded).
"""

from __future__ import annotations

import importlib
import sys
from typing import Any


def jax_loaded() -> bool:
    return "jax" in sys.modules


def attribute(module: str, name: str) -> Any:
    """``module.name`` if both exist, else None; never raises."""
    try:
        mod = importlib.import_module(module)
    except Exception:
        return None
    return getattr(mod, name, None)


def run_scoped_primitive() -> Any:
    return attribute("jax._src.pallas.primitives", "run_scoped_p")


def xla_lowering_table() -> dict[Any, Any] | None:
    table = attribute("jax._src.interpreters.mlir", "_lowerings")
    return table if isinstance(table, dict) else None


def clear_caches() -> Any:
    return attribute("jax", "clear_caches")


def jit_accepts_options_alone() -> bool:
    """Whether ``@jax.jit(static_argnames=...)`` works (newer JAX); else use ``partial``."""
    jit = attribute("jax", "jit")
    if jit is None:
        return False
    try:
        decorator = jit(static_argnames=())
    except Exception:
        return False
    return callable(decorator)


def versions() -> dict[str, str | None]:
    """Python, jax, jaxlib and the default backend, for a bug report (None: not loaded or
    not chosen yet; nothing is imported or initialised to find out)."""
    import platform

    jax = sys.modules.get("jax")
    jaxlib = sys.modules.get("jaxlib")
    jaxlib_version = getattr(sys.modules.get("jaxlib.version"), "__version__", None) or \
        getattr(jaxlib, "__version__", None)
    backend = (getattr(attribute("jax._src.xla_bridge", "_default_backend"), "platform", None)
               if jax is not None else None)
    return {"python": platform.python_version(),
            "jax": str(getattr(jax, "__version__", "")) or None,
            "jaxlib": str(jaxlib_version) if jaxlib_version else None,
            "backend": backend if isinstance(backend, str) else None}


def at_update_methods() -> frozenset[str]:
    """The update methods ``x.at[i]`` has in the installed JAX (``subtract`` is newer than
    ``add``); empty when jax is not loaded or the probe fails."""
    if not jax_loaded():
        return frozenset()
    helper = attribute("jax._src.numpy.array_methods", "_IndexUpdateRef")
    if helper is None:
        return frozenset()
    return frozenset(name for name in ("set", "add", "subtract", "multiply", "divide", "power",
                                       "min", "max") if callable(getattr(helper, name, None)))
