"""Fix: a loop's initial carry gets the dtype its body returns. ``lax.scan(step,
jnp.int32(0), xs)`` whose step returns a float32 carry becomes ``lax.scan(step,
jnp.float32(0), xs)``; a name becomes ``init.astype(jnp.float32)``; one element of a tuple
or dict literal is cast alone (``(0, jnp.zeros(2, jnp.int32))`` -> its second element).
``replace_initial_carry`` writes another expression there (an accumulator's ``0`` as
``jnp.zeros(3)``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import libcst as cst

from ._cst import dotted_name, innermost, locate, rewrite_calls
from .errors import CannotRewrite
from .magics import rewrite_line

__all__ = ["cast_initial_carry", "replace_initial_carry"]

_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint32", "float16", "bfloat16",
           "float32", "float64", "bool_")


def _recast(value: cst.BaseExpression, dtype: str) -> cst.BaseExpression:
    """``jnp.int32(0)`` -> ``jnp.float32(0)``; anything else ``(value).astype(dtype)``."""
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and \
            value.func.attr.value in _DTYPES and len(value.args) == 1:
        return value.with_changes(func=cst.parse_expression(dtype))
    if isinstance(value, cst.Integer | cst.Float) or (
            isinstance(value, cst.UnaryOperation)
            and isinstance(value.expression, cst.Integer | cst.Float)):
        return cst.Call(func=cst.parse_expression(dtype), args=[cst.Arg(value)])
    if not isinstance(value, cst.Name | cst.Attribute | cst.Subscript | cst.Call):
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Call(func=cst.Attribute(value=value, attr=cst.Name("astype")),
                    args=[cst.Arg(cst.parse_expression(dtype))])


def _changed(init: cst.BaseExpression, key: int | str | None,
             change: Callable[[cst.BaseExpression], cst.BaseExpression]) -> cst.BaseExpression:
    """``init`` with ``change`` made to it, or to its element ``key`` alone."""
    if key is None:
        return change(init)
    if isinstance(init, cst.Tuple | cst.List) and isinstance(key, int) and \
            0 <= key < len(init.elements):
        elements = list(init.elements)
        element = elements[key]
        if not isinstance(element, cst.Element):
            raise CannotRewrite("the initial carry unpacks another sequence there")
        elements[key] = element.with_changes(value=change(element.value))
        return init.with_changes(elements=elements)
    if isinstance(init, cst.Dict) and isinstance(key, str):
        entries = list(init.elements)
        for index, entry in enumerate(entries):
            if isinstance(entry, cst.DictElement) and isinstance(
                    entry.key, cst.SimpleString) and entry.key.evaluated_value == key:
                entries[index] = entry.with_changes(value=change(entry.value))
                return init.with_changes(elements=entries)
    raise CannotRewrite("the initial carry is not written as a tuple or dict whose element "
                        "jax_nbhelp can cast alone")


def _python(source: str, lineno: int, loop: str, position: int, key: int | str | None,
            change: Callable[[cst.BaseExpression], cst.BaseExpression]) -> str:
    located = locate(source, lineno)
    sites = [site for site in innermost(located.calls_at(lineno))
             if (dotted_name(site.node.func) or "").rsplit(".", 1)[-1] == loop]
    sites = sites or [site for site in located.calls_at(lineno)
                      if (dotted_name(site.node.func) or "").rsplit(".", 1)[-1] == loop]
    if len(sites) != 1:
        raise CannotRewrite(f"Line {lineno} has no single {loop}(...) call.")
    call = sites[0].node
    positional = [a for a in call.args if a.keyword is None]
    if len(positional) <= position or any(a.star for a in positional[:position + 1]):
        named = [a for a in call.args if a.keyword and a.keyword.value in ("init",
                                                                            "init_val")]
        if not named:
            raise CannotRewrite(f"The {loop} call on line {lineno} does not pass its initial "
                                "carry where jax_nbhelp can see it.")
        target = named[0]
    else:
        target = positional[position]

    index = list(call.args).index(target)

    def edit(node: cst.Call) -> cst.Call:
        return node.with_changes(args=[
            a.with_changes(value=_changed(a.value, key, change)) if i == index else a
            for i, a in enumerate(node.args)])

    return rewrite_calls(located.module, [call], edit).code


@lru_cache(maxsize=64)  # a later error of the cell asks again
def cast_initial_carry(source: str, lineno: int, loop: str, position: int,
                       key: int | str | None, dtype: str) -> str:
    """Cast the initial carry (the ``position``-th argument of the ``loop`` call on
    ``lineno``, or its element ``key``) to ``dtype``. Raises :class:`CannotRewrite`."""
    return rewrite_line(source, lineno, lambda code: _python(
        code, lineno, loop, position, key, lambda value: _recast(value, dtype)))


@lru_cache(maxsize=64)
def replace_initial_carry(source: str, lineno: int, loop: str, position: int,
                          key: int | str | None, written: str) -> str:
    """Write ``written`` for the initial carry of the ``loop`` call on ``lineno`` (or for its
    element ``key``). Raises :class:`CannotRewrite`."""
    return rewrite_line(source, lineno, lambda code: _python(
        code, lineno, loop, position, key, lambda _: cst.parse_expression(written)))
