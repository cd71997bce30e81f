"""Fix: import a JAX name from where this release keeps it, under the name the code uses
(``from jax import tree_map`` -> ``from jax.tree import map as tree_map``).

The local name stays what the user wrote, so nothing else in the cell changes (and a bare
``map`` never shadows the builtin). An import that brings other names keeps them: the moved
name gets a statement of its own on the next line.
"""

from __future__ import annotations

import libcst as cst

from ._cst import CountingTransformer, dotted_name, dotted_node, transform
from .magics import rewrite_line

__all__ = ["import_moved_name"]


class _MoveImport(CountingTransformer):
    def __init__(self, module: str, name: str, new_module: str, new_name: str) -> None:
        super().__init__()
        self._old = (module, name)
        self._new = (new_module, new_name)

    def _alias(self, alias: cst.ImportAlias) -> cst.ImportAlias:
        """The alias of the moved name, bound to the same local name as before."""
        local = alias.asname.name.value if alias.asname is not None \
            and isinstance(alias.asname.name, cst.Name) else self._old[1]
        new_name = self._new[1]
        asname = None if local == new_name else cst.AsName(name=cst.Name(local))
        return cst.ImportAlias(name=cst.Name(new_name), asname=asname)

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine | cst.FlattenSentinel[cst.SimpleStatementLine]:
        if len(updated_node.body) != 1 or not isinstance(updated_node.body[0], cst.ImportFrom):
            return updated_node
        statement = updated_node.body[0]
        module, aliases = statement.module, statement.names
        if (module is None or statement.relative or isinstance(aliases, cst.ImportStar)
                or dotted_name(module) != self._old[0]):
            return updated_node
        moved = [alias for alias in aliases
                 if isinstance(alias.name, cst.Name) and alias.name.value == self._old[1]]
        if not moved:
            return updated_node
        self.changed += 1
        new = cst.ImportFrom(module=dotted_node(self._new[0]),
                             names=[self._alias(alias) for alias in moved])
        kept = [alias for alias in aliases if alias not in moved]
        if not kept:
            return updated_node.with_changes(body=[new])
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        rest = updated_node.with_changes(body=[statement.with_changes(
            names=kept, lpar=statement.lpar if len(kept) > 1 else None,
            rpar=statement.rpar if len(kept) > 1 else None)])
        return cst.FlattenSentinel([rest, cst.SimpleStatementLine(body=[new])])


def import_moved_name(source: str, lineno: int, module: str, name: str, new_module: str,
                      new_name: str) -> str:
    """Turn ``from module import name`` (on 1-based ``lineno``, and anywhere else in the cell)
    into ``from new_module import new_name as name``. Raises :class:`CannotRewrite`."""
    return rewrite_line(source, lineno, lambda code: transform(
        code, _MoveImport(module, name, new_module, new_name),
        f"The cell has no `from {module} import {name}` to change.").code)
