"""Fix: an in-place item assignment to a JAX array becomes an ``.at[]`` update.

``x[i] = v`` becomes ``x = x.at[i].set(v)``, ``x[i] += v`` becomes ``x = x.at[i].add(v)``
(and ``-=``, ``*=``, ``/=``, ``**=`` the matching method). The new array is bound to the name
(or attribute, or item) that held the old one, which is what the assignment meant.

For an index that may be an integer array (``x[idx] += 1``), NumPy adds once per position
even where ``idx`` repeats one, while ``.at[idx].add`` adds every time; there the update is
written ``x = x.at[idx].set(x[idx] + v)``, which is NumPy's meaning exactly. ``basic`` names
the index names the caller knows to hold Python ints (their values were read).
"""

from __future__ import annotations

from collections.abc import Collection
from functools import lru_cache

import libcst as cst

from ._cst import LineTransformer, parenthesized, transform
from .errors import CannotRewrite
from .magics import rewrite_line

__all__ = ["AT_METHODS", "at_update", "at_update_python", "update_target"]

# augmented operator -> the .at[] method that does it once per position
AT_METHODS: dict[type[cst.BaseAugOp], str] = {
    cst.AddAssign: "add",
    cst.SubtractAssign: "subtract",
    cst.MultiplyAssign: "multiply",
    cst.DivideAssign: "divide",
    cst.PowerAssign: "power",
}
# augmented operator -> the binary operator it applies (for the exact .set form)
_BINARY: dict[type[cst.BaseAugOp], type[cst.BaseBinaryOp]] = {
    cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract,
    cst.MultiplyAssign: cst.Multiply, cst.DivideAssign: cst.Divide,
    cst.PowerAssign: cst.Power, cst.MatrixMultiplyAssign: cst.MatrixMultiply,
    cst.FloorDivideAssign: cst.FloorDivide, cst.ModuloAssign: cst.Modulo,
    cst.BitAndAssign: cst.BitAnd, cst.BitOrAssign: cst.BitOr, cst.BitXorAssign: cst.BitXor,
    cst.LeftShiftAssign: cst.LeftShift, cst.RightShiftAssign: cst.RightShift,
}


def _basic_index(element: cst.SubscriptElement, basic: Collection[str]) -> bool:
    """Whether one index element names positions without repeats: an int literal, a slice,
    ``...``, ``None`` or a name known to hold an int."""
    part = element.slice
    if not isinstance(part, cst.Index):
        return True  # a slice
    value = part.value
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        value = value.expression
    if isinstance(value, cst.Integer | cst.Ellipsis):
        return True
    return isinstance(value, cst.Name) and (value.value == "None" or value.value in basic)


def update_target(node: cst.Subscript) -> tuple[cst.BaseAssignTargetExpression, cst.Subscript]:
    """For ``x[i]``: the expression that holds the array (``x``) and ``x.at[i]``."""
    holder = node.value
    if not isinstance(holder, cst.Name | cst.Attribute | cst.Subscript):
        raise CannotRewrite("the assignment's target is not a name, attribute or item")
    at = cst.Subscript(value=cst.Attribute(value=holder, attr=cst.Name("at")),
                       slice=node.slice)
    return holder, at


class _AtUpdate(LineTransformer):
    def __init__(self, lineno: int, basic: Collection[str]) -> None:
        super().__init__(lineno)
        self.basic = basic

    def leave_Assign(self, original_node: cst.Assign,
                     updated_node: cst.Assign) -> cst.BaseSmallStatement:
        if not self.spans(original_node):
            return updated_node
        targets = [t.target for t in updated_node.targets]
        if len(targets) != 1 or not isinstance(targets[0], cst.Subscript):
            if any(isinstance(t, cst.Subscript) for t in targets):
                self.refusal = (f"Line {self.lineno}: the assignment has several targets; "
                                "write one `x = x.at[i].set(v)` per array.")
            return updated_node
        holder, at = update_target(targets[0])
        call = _method(at, "set", updated_node.value)
        self.changed += 1
        return cst.Assign(targets=[cst.AssignTarget(target=holder)], value=call,
                          semicolon=updated_node.semicolon)

    def leave_AugAssign(self, original_node: cst.AugAssign,
                        updated_node: cst.AugAssign) -> cst.BaseSmallStatement:
        if not self.spans(original_node) or not isinstance(updated_node.target,
                                                              cst.Subscript):
            return updated_node
        target = updated_node.target
        holder, at = update_target(target)
        kind = type(updated_node.operator)
        method = AT_METHODS.get(kind)
        if method is not None and all(_basic_index(e, self.basic) for e in target.slice):
            call = _method(at, method, updated_node.value)
        else:
            binary = _BINARY.get(kind)
            if binary is None:
                self.refusal = (f"Line {self.lineno}: jax_nbhelp does not know this in-place "
                                "operator.")
                return updated_node
            current = target.with_changes(lpar=[], rpar=[])
            combined = cst.BinaryOperation(left=current, operator=binary(),
                                           right=parenthesized(updated_node.value))
            call = _method(at, "set", combined)
        self.changed += 1
        return cst.Assign(targets=[cst.AssignTarget(target=holder)], value=call,
                          semicolon=updated_node.semicolon)


def _method(at: cst.Subscript, name: str, value: cst.BaseExpression) -> cst.Call:
    return cst.Call(func=cst.Attribute(value=at, attr=cst.Name(name)), args=[cst.Arg(value)])


def at_update_python(source: str, lineno: int, basic: Collection[str] = ()) -> str:
    """Like :func:`at_update` for plain Python (no IPython syntax)."""
    nothing = (f"Line {lineno} has no single item assignment `x[i] = v` (or `x[i] += v`) to "
               "rewrite.")
    return transform(source, _AtUpdate(lineno, basic), nothing, once=True).code


@lru_cache(maxsize=64)  # a later error of the cell asks again
def at_update(source: str, lineno: int, basic: frozenset[str] = frozenset()) -> str:
    """Rewrite the item assignment at 1-based ``lineno`` as an ``.at[]`` update.

    ``source`` is a notebook cell (IPython syntax allowed) or a module. Raises
    :class:`CannotRewrite`.
    """
    return rewrite_line(source, lineno, lambda code: at_update_python(code, lineno, basic))
