"""Fix: an ``.at[mask]`` update with a boolean mask becomes ``jnp.where``.

``x.at[mask].set(v)`` becomes ``jnp.where(mask, v, x)``; ``.add(v)`` becomes
``jnp.where(mask, x + v, x)`` (and ``subtract``, ``multiply``, ``divide`` the matching
operator). Under ``jax.jit`` the first cannot be traced (how many elements the mask
selects is unknown), the second keeps the array's shape. The caller says when they compute
the same values: the mask has the array's shape and ``v`` is one number of a type that
leaves the array's dtype as it is.
"""

from __future__ import annotations

import libcst as cst

from ._cst import LineTransformer, parenthesized, transform
from .magics import rewrite_line

__all__ = ["WHERE_OPERATORS", "masked_update_to_where", "masked_update_to_where_python"]

# the .at[] method -> the operator its jnp.where form applies ("" for set: the value itself)
WHERE_OPERATORS: dict[str, str] = {"set": "", "add": "+", "subtract": "-", "multiply": "*",
                                   "divide": "/"}
_BINARY: dict[str, type[cst.BaseBinaryOp]] = {"+": cst.Add, "-": cst.Subtract,
                                              "*": cst.Multiply, "/": cst.Divide}


def _masked_update(node: cst.Call) -> tuple[cst.BaseExpression, cst.BaseExpression, str] | None:
    """(the array, the mask, the method) of ``x.at[mask].method(v)``, else None."""
    method = node.func
    if not (isinstance(method, cst.Attribute) and method.attr.value in WHERE_OPERATORS
            and len(node.args) == 1 and node.args[0].keyword is None
            and not node.args[0].star):
        return None
    at = method.value
    if not (isinstance(at, cst.Subscript) and len(at.slice) == 1
            and isinstance(at.slice[0].slice, cst.Index)
            and isinstance(at.value, cst.Attribute) and at.value.attr.value == "at"):
        return None
    return at.value.value, at.slice[0].slice.value, method.attr.value


class _ToWhere(LineTransformer):
    def __init__(self, lineno: int, jnp: str) -> None:
        super().__init__(lineno)
        self.where = cst.parse_expression(f"{jnp}.where")

    def leave_Call(self, original_node: cst.Call,
                   updated_node: cst.Call) -> cst.BaseExpression:
        if not self.spans(original_node):
            return updated_node
        found = _masked_update(updated_node)
        if found is None:
            return updated_node
        array, mask, method = found
        value = updated_node.args[0].value
        operator = WHERE_OPERATORS[method]
        if operator:
            value = cst.BinaryOperation(left=array.with_changes(lpar=[], rpar=[]),
                                        operator=_BINARY[operator](), right=parenthesized(value))
        self.changed += 1
        return cst.Call(func=self.where, args=[
            cst.Arg(mask.with_changes(lpar=[], rpar=[])
                    if isinstance(mask, cst.Comparison | cst.Name) else mask),
            cst.Arg(value), cst.Arg(array)], lpar=updated_node.lpar, rpar=updated_node.rpar)


def masked_update_to_where_python(source: str, lineno: int, jnp: str = "jnp") -> str:
    """Like :func:`masked_update_to_where` for plain Python (no IPython syntax)."""
    nothing = f"Line {lineno} has no single `x.at[mask].set(v)` update to write with where."
    return transform(source, _ToWhere(lineno, jnp), nothing, once=True).code


def masked_update_to_where(source: str, lineno: int, jnp: str = "jnp") -> str:
    """Rewrite the ``x.at[mask].method(v)`` update on 1-based ``lineno`` as
    ``{jnp}.where(mask, ..., x)``. ``source`` is a cell (IPython syntax allowed) or a
    module. Raises :class:`CannotRewrite`."""
    return rewrite_line(source, lineno,
                        lambda code: masked_update_to_where_python(code, lineno, jnp))
