"""Fix: make a collective on a given line name the mesh's axis instead of one the mesh lacks
(``lax.psum(x, 'batch')`` -> ``lax.psum(x, 'data')`` inside a ``shard_map`` over a mesh whose
only axis is ``'data'``).

Only the axis argument of the collectives on that line changes (the second positional
argument or ``axis_name=``), and only where it is written as the string literal ``old`` (alone
or inside a tuple of names).
"""

from __future__ import annotations

import ast

import libcst as cst

from ._cst import locate
from .errors import CannotRewrite
from .magics import rewrite_line

__all__ = ["COLLECTIVES", "rename_collective_axis"]

COLLECTIVES = frozenset({
    "psum", "pmean", "pmax", "pmin", "all_gather", "all_to_all", "axis_index", "axis_size",
    "ppermute", "pshuffle", "psum_scatter", "pbroadcast",
})


def _is_collective(call: cst.Call) -> bool:
    func = call.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
    return name in COLLECTIVES


def _axis_position(call: cst.Call) -> int:
    """Where the axis name goes: ``axis_index('i')`` takes it first, the others second."""
    func = call.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
    return 0 if name in ("axis_index", "axis_size") else 1


class _Rename(cst.CSTTransformer):
    def __init__(self, calls: set[int], old: str, new: str) -> None:
        super().__init__()
        self._calls = calls
        self._old = old
        self._new = new
        self.changed = 0

    def _renamed(self, value: cst.BaseExpression) -> cst.BaseExpression:
        if isinstance(value, cst.SimpleString) and ast.literal_eval(value.value) == self._old:
            self.changed += 1
            return cst.SimpleString(repr(self._new))
        if isinstance(value, cst.Tuple):
            elements = [element.with_changes(value=self._renamed(element.value))
                        for element in value.elements]
            return value.with_changes(elements=elements)
        return value

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if id(original_node) not in self._calls:
            return updated_node
        position = _axis_position(original_node)
        args = []
        for index, arg in enumerate(updated_node.args):
            axis = (arg.keyword.value == "axis_name" if arg.keyword is not None
                    else index == position and arg.star == "")
            args.append(arg.with_changes(value=self._renamed(arg.value)) if axis else arg)
        return updated_node.with_changes(args=args)


def rename_collective_axis_python(source: str, lineno: int, old: str, new: str) -> str:
    """Like :func:`rename_collective_axis` for plain Python (no IPython syntax)."""
    located = locate(source, lineno)
    calls = {id(site.node) for site in located.calls_at(lineno) if _is_collective(site.node)}
    renamer = _Rename(calls, old, new)
    fixed = located.module.visit(renamer)
    if not renamer.changed:
        raise CannotRewrite(f"Line {lineno} has no collective that names the axis {old!r}.")
    return fixed.code


def rename_collective_axis(source: str, lineno: int, old: str, new: str) -> str:
    """Rename the axis ``old`` to ``new`` in the collectives on 1-based ``lineno`` of
    ``source`` (a notebook cell, IPython syntax allowed, or a module). Raises
    :class:`CannotRewrite`."""
    return rewrite_line(source, lineno,
                        lambda code: rename_collective_axis_python(code, lineno, old, new))
