"""Fix: hand JAX an array where the line hands it something else, by wrapping one expression
in a call: ``jnp.mean([a, b])`` becomes ``jnp.mean(jnp.asarray([a, b]))``, ``table[i]`` (a
NumPy array indexed by a traced value) becomes ``jnp.asarray(table)[i]``,
``jax.random.normal(0, ...)`` becomes ``jax.random.normal(jax.random.key(0), ...)``.

The expression is found on one line: the positional argument of a call whose function is
spelled ``callee`` (its last dotted part), or every subscripted base spelled ``base``.
Everything else is kept byte for byte.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import libcst as cst

from ._cst import LineTransformer, dotted_name, transform
from .magics import rewrite_line

__all__ = ["cast_argument", "cast_passed", "cast_value", "read_ref_argument", "replace_callee",
           "wrap_argument", "wrap_subscripted"]


def _wrap(value: cst.BaseExpression, wrapper: str) -> cst.Call:
    return cst.Call(func=cst.parse_expression(wrapper), args=[cst.Arg(value)])


class _Wrapper(LineTransformer):
    def __init__(self, lineno: int, change: Callable[[cst.CSTNode], cst.CSTNode | None]) -> None:
        super().__init__(lineno)
        self.change = change

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Any:
        if self.spans(original_node):
            changed = self.change(updated_node)
            if changed is not None:
                self.changed += 1
                return changed
        return updated_node


def _apply(source: str, lineno: int, change: Callable[[cst.CSTNode], cst.CSTNode | None],
           nothing: str) -> str:
    return transform(source, _Wrapper(lineno, change), nothing).code


Edit = Callable[[cst.BaseExpression], cst.BaseExpression | None]


def _argument_of(node: cst.Call, position: int, keyword: str | None) -> cst.Arg | None:
    """The argument a call passes as ``keyword=`` (when it does), else at ``position``
    (0-based, positional; None past a ``*args`` or the last one)."""
    named = [a for a in node.args if keyword and a.keyword and a.keyword.value == keyword]
    if named:
        return named[0]
    positional = [a for a in node.args if a.keyword is None]
    if any(a.star for a in positional[:position + 1]) or len(positional) <= position:
        return None
    return positional[position]


def _edit_argument(source: str, lineno: int, callee: str | None, position: int, edit: Edit,
                   nothing: str, keyword: str | None = None) -> str:
    """``source`` with one argument of each call on ``lineno`` replaced by ``edit`` of it:
    of calls whose function's last name is ``callee`` (any call when None); ``edit``
    returns None to leave a call alone."""
    def change(node: cst.CSTNode) -> cst.CSTNode | None:
        if not isinstance(node, cst.Call) or (callee is not None and \
                (dotted_name(node.func) or "").rsplit(".", 1)[-1] != callee):
            return None
        target = _argument_of(node, position, keyword)
        new = edit(target.value) if target is not None else None
        if target is None or new is None:
            return None
        return node.with_changes(args=[a.with_changes(value=new) if a is target else a
                                       for a in node.args])

    return rewrite_line(source, lineno, lambda code: _apply(code, lineno, change, nothing))


@lru_cache(maxsize=64)  # a later error of the cell asks again
def wrap_argument(source: str, lineno: int, callee: str, position: int, wrapper: str,
                  keyword: str | None = None, only: str | None = None) -> str:
    """Wrap the ``position``-th (0-based) positional argument of each ``callee(...)`` call
    on 1-based ``lineno`` in ``wrapper(...)``, or its ``keyword=`` argument where the call
    passes it so; with ``only`` (an ``ast.dump`` of the argument), only where the argument
    is that expression (``norm([norm(g) for g in gs])`` wraps the outer one). Raises
    :class:`CannotRewrite`."""
    def edit(value: cst.BaseExpression) -> cst.BaseExpression | None:
        if only is not None and _dumped(value) != only:
            return None
        return _wrap(value, wrapper)

    return _edit_argument(source, lineno, callee, position, edit,
                          f"Line {lineno} has no call of {callee} with an argument "
                          f"{position + 1} to wrap in {wrapper}(...).", keyword)


def _dumped(value: cst.BaseExpression) -> str | None:
    """``ast.dump`` of an expression libcst holds (None where Python cannot parse it)."""
    try:
        return ast.dump(ast.parse(cst.Module([]).code_for_node(value).strip(), mode="eval").body)
    except SyntaxError:
        return None


def _subscripted_python(source: str, lineno: int, base: str, wrapper: str) -> str:
    def change(node: cst.CSTNode) -> cst.CSTNode | None:
        if not isinstance(node, cst.Subscript) or dotted_name(node.value) != base:
            return None
        return node.with_changes(value=_wrap(node.value, wrapper))

    return _apply(source, lineno, change,
                  f"Line {lineno} does not index {base} (`{base}[...]`).")


@lru_cache(maxsize=64)  # a later error of the cell asks again
def wrap_subscripted(source: str, lineno: int, base: str, wrapper: str) -> str:
    """Wrap the base of every ``base[...]`` on 1-based ``lineno`` in ``wrapper(...)``."""
    return rewrite_line(source, lineno,
                        lambda code: _subscripted_python(code, lineno, base, wrapper))


def _cast(value: cst.BaseExpression, dtype: str) -> cst.BaseExpression:
    """``value.astype(dtype)``, or ``dtype(value)`` for a number literal."""
    plain = value.expression if isinstance(value, cst.UnaryOperation) else value
    if isinstance(plain, cst.Integer | cst.Float):
        return cst.Call(func=cst.parse_expression(dtype), args=[cst.Arg(value)])
    if not isinstance(value, cst.Name | cst.Attribute | cst.Subscript | cst.Call) \
            and not value.lpar:
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Call(func=cst.Attribute(value=value, attr=cst.Name("astype")),
                    args=[cst.Arg(cst.parse_expression(dtype))])


@lru_cache(maxsize=64)  # a later error of the cell asks again
def cast_argument(source: str, lineno: int, callee: str, position: int, dtype: str) -> str:
    """Cast the ``position``-th positional argument of ``callee(...)`` on ``lineno`` to
    ``dtype`` (an expression such as ``jnp.float32``): ``x.astype(jnp.float32)``, or
    ``jnp.float32(1)`` for a literal."""
    return _edit_argument(source, lineno, callee, position, lambda v: _cast(v, dtype),
                          f"Line {lineno} has no call of {callee} with an argument "
                          f"{position + 1} to cast.")


@lru_cache(maxsize=64)  # a later error of the cell asks again
def replace_callee(source: str, lineno: int, callee: str, new: str) -> str:
    """Call ``new`` (a dotted name) where the line calls ``callee`` (spelled exactly so)."""
    def change_python(code: str) -> str:
        def change(node: cst.CSTNode) -> cst.CSTNode | None:
            if not isinstance(node, cst.Call) or dotted_name(node.func) != callee:
                return None
            return node.with_changes(func=cst.parse_expression(new))

        return _apply(code, lineno, change, f"Line {lineno} has no call of {callee}.")

    return rewrite_line(source, lineno, change_python)


@lru_cache(maxsize=64)  # a later error of the cell asks again
def cast_value(source: str, lineno: int, dtype: str) -> str:
    """Cast the value of the assignment on ``lineno`` (``o_ref[...] = v``) to ``dtype``:
    ``o_ref[...] = (v).astype(dtype)``."""
    def change_python(code: str) -> str:
        def change(node: cst.CSTNode) -> cst.CSTNode | None:
            if not isinstance(node, cst.Assign):
                return None
            return node.with_changes(value=_cast(node.value, dtype))

        return _apply(code, lineno, change, f"Line {lineno} has no assignment to cast.")

    return rewrite_line(source, lineno, change_python)


@lru_cache(maxsize=64)  # a later error of the cell asks again
def cast_passed(source: str, lineno: int, position: int, passed: str, dtype: str) -> str:
    """Cast what a call on ``lineno`` passes as its ``position``-th positional argument,
    spelled ``passed`` (``3`` becomes ``3.0`` when ``dtype`` is a float type; ``x`` becomes
    ``x.astype(dtype)``, or ``float(x)`` where ``dtype`` is Python's ``float``), whatever the
    call's function is (``jax.grad(f)(x)``)."""
    def edit(value: cst.BaseExpression) -> cst.BaseExpression | None:
        if cst.Module([]).code_for_node(value) != passed:
            return None
        if isinstance(value, cst.Integer) and "float" in dtype:
            return cst.Float(f"{int(value.value, 0)}.0")
        if dtype == "float":  # a Python int held by a name: Python's float of it
            return cst.Call(func=cst.Name("float"), args=[cst.Arg(value)])
        return _cast(value, dtype)

    return _edit_argument(source, lineno, None, position, edit,
                          f"Line {lineno} passes no {passed} as argument {position + 1} of "
                          "a call.")


@lru_cache(maxsize=64)  # a later error of the cell asks again
def read_ref_argument(source: str, lineno: int, callee: str, position: int) -> str:
    """Pass ``ref[...]`` (the value an array ref holds) where the ``callee(...)`` call on
    ``lineno`` passes the ref itself as its ``position``-th argument."""
    def read(value: cst.BaseExpression) -> cst.BaseExpression:
        return cst.Subscript(value=value, slice=[cst.SubscriptElement(cst.Index(cst.Ellipsis()))])

    return _edit_argument(source, lineno, callee, position, read,
                          f"Line {lineno} has no call of {callee} with an argument "
                          f"{position + 1} to read.")
