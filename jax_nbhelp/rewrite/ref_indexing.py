"""Fix: ``pl.load(ref, idx)`` becomes ``ref[idx]`` and ``pl.store(ref, idx, value)`` becomes
``ref[idx] = value``, in every use of a cell.

JAX removed ``pl.load``/``pl.store`` in 0.9.0 (deprecated since 0.7.1); indexing the ref
reads and writes the same block. Only the plain forms are mechanical: a masked load or
store (``mask=``, ``other=``, ``eviction_policy=``) has no indexing twin here, so a cell
with one is refused as a whole.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ._cst import CountingTransformer, dotted_name, transform
from .errors import CannotRewrite
from .magics import rewrite_line

__all__ = ["index_refs"]

Names = Callable[[str], bool]


def _operation(call: cst.Call, pallas: Names) -> str | None:
    func = call.func
    if (isinstance(func, cst.Attribute) and func.attr.value in {"load", "store"}
            and pallas(dotted_name(func.value) or "")):
        return func.attr.value
    return None


def _subscript(ref: cst.BaseExpression, index: cst.BaseExpression) -> cst.Subscript:
    items = (index.elements if isinstance(index, cst.Tuple) and index.elements else None)
    if items is None:
        elements = [cst.SubscriptElement(cst.Index(index))]
    else:
        elements = [cst.SubscriptElement(cst.Index(item.value)) for item in items]
    return cst.Subscript(value=ref, slice=elements)


def _plain(call: cst.Call, count: int, name: str) -> list[cst.BaseExpression]:
    if (len(call.args) != count or any(arg.keyword is not None or arg.star
                                       for arg in call.args)):
        raise CannotRewrite(f"A pl.{name}(...) call passes keywords (a mask, a fill value) or "
                            "other arguments, which ref indexing does not take; index the "
                            "ref where the block is whole, or use jnp.where on the values.")
    return [arg.value for arg in call.args]


class _IndexRefs(CountingTransformer):
    def __init__(self, pallas: Names) -> None:
        super().__init__()
        self.pallas = pallas

    def leave_Expr(self, original_node: cst.Expr,
                   updated_node: cst.Expr) -> cst.BaseSmallStatement:
        value = updated_node.value
        if isinstance(value, cst.Call) and _operation(value, self.pallas) == "store":
            ref, index, stored = _plain(value, 3, "store")
            self.changed += 1
            return cst.Assign(targets=[cst.AssignTarget(_subscript(ref, index))], value=stored)
        return updated_node

    def leave_Call(self, original_node: cst.Call,
                   updated_node: cst.Call) -> cst.BaseExpression:
        operation = _operation(updated_node, self.pallas)
        if operation == "load":
            ref, index = _plain(updated_node, 2, "load")
            self.changed += 1
            return _subscript(ref, index)
        return updated_node


def _python(code: str, pallas: Names) -> str:
    fixed = transform(code, _IndexRefs(pallas),
                      "The cell has no pl.load or pl.store call to change.")
    if any(pallas(name.rsplit(".", 1)[0]) for name in _store_calls(fixed)):
        raise CannotRewrite("A pl.store(...) is used as a value, not as a statement; write "
                            "it as ref[idx] = value.")
    return fixed.code


def _store_calls(module: cst.Module) -> list[str]:
    found: list[str] = []

    class Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            name = dotted_name(node.func) or ""
            if name.endswith(".store"):
                found.append(name)

    module.visit(Calls())
    return found


def index_refs(source: str, lineno: int, pallas: Names) -> str:
    """Every plain ``pl.load``/``pl.store`` of the cell as ref indexing (``pallas`` says
    whether a dotted name names ``jax.experimental.pallas``); ``lineno`` is the line that
    raised, refused when it is IPython syntax. Raises :class:`CannotRewrite`."""
    return rewrite_line(source, lineno, lambda code: _python(code, pallas))
