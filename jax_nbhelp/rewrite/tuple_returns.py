"""Fix: a ``custom_vjp`` backward rule returns a bare cotangent where JAX wants a tuple with
one cotangent per argument of the primal function: ``return g * 2`` becomes
``return (g * 2,)`` in the function whose ``def`` is on the given line.
"""

from __future__ import annotations

from functools import lru_cache

import libcst as cst

from ._cst import LineTransformer, transform
from .magics import rewrite_line

__all__ = ["list_returns_as_tuples", "returns_as_one_tuple"]


class _Returns(LineTransformer):
    def __init__(self, def_line: int) -> None:
        super().__init__(def_line)
        self.depth = 0  # > 0 inside the function (nested defs are left alone)
        self.nested = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self.depth:
            self.nested += 1
        elif self.starts(node.name):
            self.depth = 1

    def leave_FunctionDef(self, original_node: cst.FunctionDef,
                          updated_node: cst.FunctionDef) -> cst.FunctionDef:
        if self.nested:
            self.nested -= 1
        elif self.depth:
            self.depth = 0
        return updated_node

    def leave_Return(self, original_node: cst.Return, updated_node: cst.Return) -> cst.Return:
        if not self.depth or self.nested or updated_node.value is None or \
                isinstance(updated_node.value, cst.Tuple):
            return updated_node
        self.changed += 1
        return updated_node.with_changes(value=cst.Tuple(
            [cst.Element(updated_node.value, comma=cst.Comma())]))


def _python(source: str, def_line: int) -> str:
    nothing = (f"The function defined on line {def_line} has no return of a single value to "
               "put in a tuple.")
    return transform(source, _Returns(def_line), nothing).code


@lru_cache(maxsize=64)  # a later error of the cell asks again
def returns_as_one_tuple(source: str, def_line: int) -> str:
    """Make every ``return v`` of the function defined on ``def_line`` ``return (v,)``."""
    return rewrite_line(source, def_line, lambda code: _python(code, def_line))


class _ListReturns(LineTransformer):
    """``return [a, b]`` (or a lambda's ``[a, b]``) of the function on a line: a tuple."""

    def __init__(self, def_line: int, name: str) -> None:
        super().__init__(def_line)
        self.name = name
        self.inside = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self.inside or (node.name.value == self.name and self.starts(node.name)):
            self.inside += 1

    def leave_FunctionDef(self, original_node: cst.FunctionDef,
                          updated_node: cst.FunctionDef) -> cst.FunctionDef:
        self.inside = max(0, self.inside - 1)
        return updated_node

    def leave_Return(self, original_node: cst.Return, updated_node: cst.Return) -> cst.Return:
        if self.inside == 1 and isinstance(updated_node.value, cst.List):
            self.changed += 1
            return updated_node.with_changes(value=_as_tuple(updated_node.value))
        return updated_node

    def leave_Lambda(self, original_node: cst.Lambda,
                     updated_node: cst.Lambda) -> cst.Lambda:
        if (self.name == "<lambda>" and self.starts(original_node)
                and isinstance(updated_node.body, cst.List)):
            self.changed += 1
            return updated_node.with_changes(body=_as_tuple(updated_node.body))
        return updated_node


def _as_tuple(node: cst.List) -> cst.Tuple:
    elements = list(node.elements)
    if len(elements) == 1 and not isinstance(elements[0].comma, cst.Comma):
        elements[0] = elements[0].with_changes(comma=cst.Comma())
    return cst.Tuple(elements, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _lists_python(source: str, def_line: int, name: str) -> str:
    nothing = f"{name} (line {def_line}) returns no list literal to make a tuple."
    return transform(source, _ListReturns(def_line, name), nothing).code


@lru_cache(maxsize=64)  # a later error of the cell asks again
def list_returns_as_tuples(source: str, def_line: int, name: str) -> str:
    """Make the list literals that ``name`` (a def, or ``<lambda>``, on ``def_line``) returns
    tuples. Raises :class:`CannotRewrite`."""
    return rewrite_line(source, def_line, lambda code: _lists_python(code, def_line, name))
