"""Fix: hand JAX an array where the line hands it something else, by wrapping one expression
in a call: ``jnp.mean([a, b])`` becomes ``jnp.mean(jnp.asarray([a, b]))``, ``table[i]`` (a
NumPy array indexed by a traced value) becomes ``jnp.asarray(table)[i]``,
``jax.random.normal(0, ...)`` becomes ``jax.random.normal(jax.random.key(0), ...)``.

The expression is found on one line: the positional argument of a call whose function is
spelled ``callee`` (its last dotted part), or every subscripted base spelled ``base``.
Everything else is kept byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ._cst import dotted_name
from .errors import CannotRewrite
from .magics import rewrite_line

__all__ = ["wrap_argument", "wrap_subscripted"]


def _wrap(value: cst.BaseExpression, wrapper: str) -> cst.Call:
    return cst.Call(func=cst.parse_expression(wrapper), args=[cst.Arg(value)])


class _Wrapper(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, lineno: int, change: Callable[[cst.CSTNode], cst.CSTNode | None]) -> None:
        super().__init__()
        self.lineno = lineno
        self.change = change
        self.changed = 0

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Any:
        position = self.get_metadata(PositionProvider, original_node, None)
        if position is not None and position.start.line <= self.lineno <= position.end.line:
            changed = self.change(updated_node)
            if changed is not None:
                self.changed += 1
                return changed
        return updated_node


def _apply(source: str, lineno: int, change: Callable[[cst.CSTNode], cst.CSTNode | None],
           nothing: str) -> str:
    try:
        wrapper = MetadataWrapper(cst.parse_module(source))
    except cst.ParserSyntaxError:
        raise CannotRewrite("The cell is not valid Python, so it can't be rewritten.") from None
    transformer = _Wrapper(lineno, change)
    fixed = wrapper.visit(transformer)
    if not transformer.changed:
        raise CannotRewrite(nothing)
    return fixed.code


def _argument_python(source: str, lineno: int, callee: str, position: int,
                     wrapper: str, keyword: str | None) -> str:
    def change(node: cst.CSTNode) -> cst.CSTNode | None:
        if not isinstance(node, cst.Call):
            return None
        name = dotted_name(node.func) or ""
        if name.rsplit(".", 1)[-1] != callee:
            return None
        named = [a for a in node.args if keyword and a.keyword and a.keyword.value == keyword]
        positional = [a for a in node.args if a.keyword is None]
        if named:
            target = named[0]
        elif any(a.star for a in positional[:position + 1]) or len(positional) <= position:
            return None
        else:
            target = positional[position]
        args = [a.with_changes(value=_wrap(a.value, wrapper)) if a is target else a
                for a in node.args]
        return node.with_changes(args=args)

    return _apply(source, lineno, change,
                  f"Line {lineno} has no call of {callee} with an argument {position + 1} to "
                  f"wrap in {wrapper}(...).")


def wrap_argument(source: str, lineno: int, callee: str, position: int, wrapper: str,
                  keyword: str | None = None) -> str:
    """Wrap the ``position``-th (0-based) positional argument of each ``callee(...)`` call
    on 1-based ``lineno`` in ``wrapper(...)``, or its ``keyword=`` argument where the call
    passes it so. Raises :class:`CannotRewrite`."""
    return rewrite_line(source, lineno, lambda code: _argument_python(
        code, lineno, callee, position, wrapper, keyword))


def _subscripted_python(source: str, lineno: int, base: str, wrapper: str) -> str:
    def change(node: cst.CSTNode) -> cst.CSTNode | None:
        if not isinstance(node, cst.Subscript) or dotted_name(node.value) != base:
            return None
        return node.with_changes(value=_wrap(node.value, wrapper))

    return _apply(source, lineno, change,
                  f"Line {lineno} does not index {base} (`{base}[...]`).")


def wrap_subscripted(source: str, lineno: int, base: str, wrapper: str) -> str:
    """Wrap the base of every ``base[...]`` on 1-based ``lineno`` in ``wrapper(...)``."""
    return rewrite_line(source, lineno,
                        lambda code: _subscripted_python(code, lineno, base, wrapper))
