"""Fix: an import of a JAX module that moved imports it from its new home:
``from jax.experimental import optimizers`` becomes ``from jax.example_libraries import
optimizers``, ``from jax.experimental.stax import Dense`` becomes ``from
jax.example_libraries.stax import Dense``, ``import jax.experimental.optimizers as opt``
becomes ``import jax.example_libraries.optimizers as opt``.

The names the import binds stay as they were, so the rest of the code is unchanged. An
import that binds the old path itself (``import jax.experimental.optimizers`` without
``as``) or mixes the moved module with names that stay is not rewritten.
"""

from __future__ import annotations

import libcst as cst

from ._cst import CountingTransformer, dotted_name, dotted_node, transform
from .errors import CannotRewrite
from .magics import rewrite_line

__all__ = ["import_moved_module"]


class _MovedImport(CountingTransformer):
    def __init__(self, old: str, new: str) -> None:
        super().__init__()
        self.old, self.new = old, new
        self.old_parent, _, self.leaf = old.rpartition(".")
        self.new_parent, _, self.new_leaf = new.rpartition(".")

    def leave_ImportFrom(self, original_node: cst.ImportFrom,
                         updated_node: cst.ImportFrom) -> cst.ImportFrom:
        module = updated_node.module
        names = updated_node.names
        if module is None or updated_node.relative:
            return updated_node
        path = dotted_name(module) or ""
        if path == self.old or path.startswith(self.old + "."):
            self.changed += 1
            return updated_node.with_changes(module=dotted_node(self.new + path[len(self.old):]))
        if path != self.old_parent or isinstance(names, cst.ImportStar):
            return updated_node
        leaves = [alias.name.value for alias in names if isinstance(alias.name, cst.Name)]
        if self.leaf not in leaves:
            return updated_node
        if any(leaf != self.leaf for leaf in leaves) or self.new_leaf != self.leaf:
            raise CannotRewrite(f"the import names {self.leaf} beside names that did not "
                                "move: import it on a line of its own")
        self.changed += 1
        return updated_node.with_changes(module=dotted_node(self.new_parent))

    def leave_Import(self, original_node: cst.Import, updated_node: cst.Import) -> cst.Import:
        aliases = []
        for alias in updated_node.names:
            path = dotted_name(alias.name) or ""
            if (path == self.old or path.startswith(self.old + ".")) and alias.asname is not None:
                self.changed += 1
                alias = alias.with_changes(name=dotted_node(self.new + path[len(self.old):]))
            aliases.append(alias)
        return updated_node.with_changes(names=aliases)


def import_moved_module(source: str, lineno: int, old: str, new: str) -> str:
    """Import the module ``old`` (dotted) from ``new`` on 1-based ``lineno``, keeping the
    names the import binds. Raises :class:`CannotRewrite`."""
    def rewrite(code: str) -> str:
        return transform(code, _MovedImport(old, new),
                         f"The line has no import of {old} that can name {new} instead.").code

    return rewrite_line(source, lineno, rewrite)
