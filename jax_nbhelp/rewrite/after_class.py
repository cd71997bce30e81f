"""Fix: a statement right after a class definition, at its indentation:
``jax.tree_util.register_dataclass(Circle, data_fields=[...], meta_fields=[...])`` after
``class Circle: ...``, so that JAX can pass the class's objects through jit, grad and vmap.
"""

from __future__ import annotations

from functools import lru_cache

import libcst as cst

from .errors import CannotRewrite
from .magics import rewrite_cell

__all__ = ["insert_after_class"]


class _After(cst.CSTTransformer):
    def __init__(self, name: str, statement: cst.BaseStatement) -> None:
        super().__init__()
        self.name = name
        self.statement = statement
        self.found = 0

    def _insert(self, body: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
        out: list[cst.BaseStatement] = []
        for node in body:
            out.append(node)
            if isinstance(node, cst.ClassDef) and node.name.value == self.name:
                self.found += 1
                out.append(self.statement.with_changes(leading_lines=[cst.EmptyLine()]))
        return out

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return updated_node.with_changes(body=self._insert(list(updated_node.body)))


def _python(source: str, name: str, statement: str) -> str:
    try:
        module = cst.parse_module(source)
        line = cst.parse_statement(statement)
    except cst.ParserSyntaxError:
        raise CannotRewrite("The cell is not valid Python, so it can't be rewritten.") from None
    transformer = _After(name, line)
    fixed = module.visit(transformer)
    if transformer.found != 1:
        raise CannotRewrite(f"The cell does not define class {name} once at its top level.")
    return fixed.code


@lru_cache(maxsize=64)  # a later error of the cell asks again
def insert_after_class(source: str, name: str, statement: str) -> str:
    """Put ``statement`` right after the top-level ``class name`` of ``source`` (a cell or
    a module). Raises :class:`CannotRewrite`."""
    return rewrite_cell(source, lambda code: _python(code, name, statement))
