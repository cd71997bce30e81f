"""Fix: ``jax.ops.index_update(x, idx, y)`` becomes ``x.at[idx].set(y)``, and its siblings
(``index_add``, ``index_mul``, ``index_min``, ``index_max``) the matching ``.at`` method, in
every use of a cell.

JAX removed these functions in 0.3.2 (deprecated since 0.2.22); each was ``x.at[idx]`` with
the method named here, keywords included (``indices_are_sorted=``, ``unique_indices=``).
An index spelled ``jax.ops.index[...]`` (also removed) becomes the subscript it wraps.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ._cst import CountingTransformer, dotted_name, parenthesized, transform
from .errors import CannotRewrite
from .magics import rewrite_line

__all__ = ["METHODS", "ops_index_to_at"]

# jax.ops.index_<name> -> the .at method it was
METHODS = {"index_update": "set", "index_add": "add", "index_mul": "multiply",
           "index_min": "min", "index_max": "max"}
_KEYWORDS = {"indices_are_sorted", "unique_indices"}

Names = Callable[[str], bool]


def _slice(index: cst.BaseExpression, ops: Names) -> list[cst.SubscriptElement]:
    """The subscript of ``x.at[...]``: what ``jax.ops.index[...]`` wrapped, else ``index``."""
    if isinstance(index, cst.Subscript) and _is_ops_index(index.value, ops):
        return list(index.slice)
    if isinstance(index, cst.Tuple) and index.elements and not index.lpar:
        return [cst.SubscriptElement(cst.Index(item.value)) for item in index.elements]
    return [cst.SubscriptElement(cst.Index(index))]


def _is_ops_index(node: cst.BaseExpression, ops: Names) -> bool:
    return (isinstance(node, cst.Attribute) and node.attr.value == "index"
            and ops(dotted_name(node.value) or ""))


class _OpsToAt(CountingTransformer):
    def __init__(self, ops: Names) -> None:
        super().__init__()
        self.ops = ops

    def leave_Call(self, original_node: cst.Call,
                   updated_node: cst.Call) -> cst.BaseExpression:
        func = updated_node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in METHODS
                and self.ops(dotted_name(func.value) or "")):
            return updated_node
        args = list(updated_node.args)
        positional = [arg for arg in args if arg.keyword is None]
        keywords = [arg for arg in args if arg.keyword is not None]
        if (len(positional) != 3 or any(arg.star for arg in args)
                or any(arg.keyword.value not in _KEYWORDS for arg in keywords
                       if arg.keyword is not None)):
            raise CannotRewrite(f"A jax.ops.{func.attr.value}(...) call does not pass the array, "
                                "the index and the values by position; write it as "
                                "x.at[idx]." + METHODS[func.attr.value] + "(values).")
        array, index, values = (arg.value for arg in positional)
        at = cst.Attribute(value=parenthesized(array), attr=cst.Name("at"))
        target = cst.Subscript(value=at, slice=_slice(index, self.ops))
        method = cst.Attribute(value=target, attr=cst.Name(METHODS[func.attr.value]))
        passed = [cst.Arg(values)] + [arg.with_changes(comma=cst.MaybeSentinel.DEFAULT)
                                      for arg in keywords]
        self.changed += 1
        return cst.Call(func=method, args=[arg.with_changes(comma=cst.MaybeSentinel.DEFAULT)
                                           for arg in passed])


def _python(code: str, ops: Names) -> str:
    return transform(code, _OpsToAt(ops),
                     "The cell has no jax.ops.index_update (or index_add, index_mul, "
                     "index_min, index_max) call to change.").code


def ops_index_to_at(source: str, lineno: int, ops: Names) -> str:
    """Every ``jax.ops.index_<op>(x, idx, y)`` of the cell as ``x.at[idx].<method>(y)``
    (``ops`` says whether a dotted name names ``jax.ops``); ``lineno`` is the line that
    raised, refused when it is IPython syntax. Raises :class:`CannotRewrite`."""
    return rewrite_line(source, lineno, lambda code: _python(code, ops))
