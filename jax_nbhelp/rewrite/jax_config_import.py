"""Fix: ``from jax.config import config`` becomes ``from jax import config``.

Older JAX releases had a ``jax.config`` module holding the ``config`` object; newer ones
have only the object, as ``jax.config``. Both imports bind the same object.
"""

from __future__ import annotations

import libcst as cst

from ._cst import CountingTransformer, dotted_name, transform
from .magics import rewrite_line

__all__ = ["import_config_from_jax"]


class _ConfigImport(CountingTransformer):
    def leave_ImportFrom(self, original_node: cst.ImportFrom,
                         updated_node: cst.ImportFrom) -> cst.ImportFrom:
        module = updated_node.module
        names = updated_node.names
        if (module is None or dotted_name(module) != "jax.config" or updated_node.relative
                or isinstance(names, cst.ImportStar)
                or any(alias.name.value != "config" for alias in names)):
            return updated_node
        self.changed += 1
        return updated_node.with_changes(module=cst.Name("jax"))


def _rewrite(code: str) -> str:
    return transform(code, _ConfigImport(),
                     "The cell has no `from jax.config import config` to change.").code


def import_config_from_jax(source: str, lineno: int) -> str:
    """Turn ``from jax.config import config`` (on 1-based ``lineno``, and anywhere else in
    the cell) into ``from jax import config``. Raises :class:`CannotRewrite`."""
    return rewrite_line(source, lineno, _rewrite)
