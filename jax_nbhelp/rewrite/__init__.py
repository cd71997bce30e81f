"""Source rewrites that fix JAX/Pallas errors in notebook cells and modules.

All functions take and return source text.  Submodules load on first use so
that importing this package doesn't pay for libcst or IPython's tokenizer.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .errors import CannotRewrite

if TYPE_CHECKING:
    from .collective_axes import remove_collective_axes, remove_collective_axes_python
    from .diff import unified_diff
    from .magics import EscapedMagics, escape_magics, restore_magics, rewrite_cell
    from .numpy_to_jnp import numpy_calls_at, numpy_calls_to_jnp, numpy_calls_to_jnp_python
    from .static_argnames import add_static_argnames, add_static_argnames_python
    from .wrap_in_jit import wrap_call_in_jit, wrap_call_in_jit_python

__all__ = [
    "CannotRewrite",
    "EscapedMagics",
    "add_static_argnames",
    "add_static_argnames_python",
    "escape_magics",
    "numpy_calls_at",
    "numpy_calls_to_jnp",
    "numpy_calls_to_jnp_python",
    "remove_collective_axes",
    "remove_collective_axes_python",
    "restore_magics",
    "rewrite_cell",
    "unified_diff",
    "wrap_call_in_jit",
    "wrap_call_in_jit_python",
]

_HOME = {
    "EscapedMagics": "magics",
    "escape_magics": "magics",
    "restore_magics": "magics",
    "rewrite_cell": "magics",
    "remove_collective_axes": "collective_axes",
    "remove_collective_axes_python": "collective_axes",
    "unified_diff": "diff",
    "wrap_call_in_jit": "wrap_in_jit",
    "wrap_call_in_jit_python": "wrap_in_jit",
    "add_static_argnames": "static_argnames",
    "add_static_argnames_python": "static_argnames",
    "numpy_calls_at": "numpy_to_jnp",
    "numpy_calls_to_jnp": "numpy_to_jnp",
    "numpy_calls_to_jnp_python": "numpy_to_jnp",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # later lookups skip this function
    return value
