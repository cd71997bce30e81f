"""Fix: stop marking one parameter of a jitted function static, where the function is jitted.

The reverse of :mod:`static_argnames`: ``name`` leaves ``static_argnames`` and ``index``
(its position) leaves ``static_argnums``, in the jit decorator of the ``def`` or the
``jax.jit(f, ...)`` call on ``lineno``. An option left empty is dropped, and
``partial(jax.jit)`` / ``jax.jit()`` left without options become plain ``jax.jit``.
"""

from __future__ import annotations

import libcst as cst

from .errors import CannotRewrite
from .magics import rewrite_cell
from .static_argnames import find_jit_target, is_jit_expression, jit_decorator

__all__ = ["remove_static_arg"]


def _drop(value: cst.BaseExpression, name: str | None,
          index: int | None) -> cst.BaseExpression | None:
    """``value`` without ``name``/``index``; None when nothing is left; ``value`` if absent."""

    def matches(expr: cst.BaseExpression) -> bool:
        if name is not None and isinstance(expr, cst.SimpleString):
            return expr.evaluated_value == name
        if index is not None and isinstance(expr, cst.Integer):
            return int(expr.value) == index
        return False

    if matches(value):
        return None
    if isinstance(value, (cst.Tuple, cst.List)):
        kept = [e for e in value.elements if not (isinstance(e, cst.Element) and matches(e.value))]
        if len(kept) == len(value.elements):
            return value
        if not kept:
            return None
        last = kept[-1]
        comma: cst.Comma | cst.MaybeSentinel = (
            cst.Comma() if isinstance(value, cst.Tuple) and len(kept) == 1
            else cst.MaybeSentinel.DEFAULT)
        kept[-1] = last.with_changes(comma=comma)
        return value.with_changes(elements=kept)
    return value


def _without(call: cst.Call, name: str, index: int | None, where: str) -> cst.Call:
    args: list[cst.Arg] = []
    changed = False
    for arg in call.args:
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword in ("static_argnames", "static_argnums"):
            new = _drop(arg.value, name if keyword == "static_argnames" else None,
                        index if keyword == "static_argnums" else None)
            if new is not arg.value:
                changed = True
                if new is None:
                    continue
                arg = arg.with_changes(value=new)
        args.append(arg)
    if not changed:
        raise CannotRewrite(f"{where} does not list {name} in static_argnames or "
                            "static_argnums as plain literals; remove it yourself.")
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=args)


def _simplified(expr: cst.Call) -> cst.BaseExpression:
    """``partial(jax.jit)`` and ``jax.jit()`` become ``jax.jit``."""
    if not expr.args and is_jit_expression(expr.func):
        return expr.func
    if len(expr.args) == 1 and expr.args[0].keyword is None \
            and is_jit_expression(expr.args[0].value) and not is_jit_expression(expr.func):
        return expr.args[0].value
    return expr


class _RemoveStaticArg(cst.CSTTransformer):
    def __init__(self, target: cst.CSTNode, name: str, index: int | None, where: str) -> None:
        super().__init__()
        self._target = target
        self._name = name
        self._index = index
        self._where = where

    def leave_FunctionDef(self, original_node: cst.FunctionDef,
                          updated_node: cst.FunctionDef) -> cst.FunctionDef:
        if original_node is not self._target:
            return updated_node
        decorators, position = jit_decorator(updated_node, self._where)
        expr = decorators[position].decorator
        if not isinstance(expr, cst.Call):
            raise CannotRewrite(f"{self._where} marks nothing static.")
        new = _simplified(_without(expr, self._name, self._index, self._where))
        decorators[position] = decorators[position].with_changes(decorator=new)
        return updated_node.with_changes(decorators=decorators)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if original_node is not self._target:
            return updated_node
        return _without(updated_node, self._name, self._index, self._where)


def remove_static_arg_python(source: str, lineno: int | None, function: str, name: str,
                             index: int | None) -> str:
    wrapper, target, where = find_jit_target(source, lineno, function)
    return wrapper.module.visit(_RemoveStaticArg(target.node, name, index, where)).code


def remove_static_arg(source: str, lineno: int | None, function: str, name: str,
                      index: int | None = None) -> str:
    """Remove parameter ``name`` (position ``index``) from the static options of the jit
    applied to ``function`` on ``lineno`` of ``source`` (a cell, IPython syntax allowed).
    Raises :class:`CannotRewrite`."""
    return rewrite_cell(source,
                        lambda code: remove_static_arg_python(code, lineno, function, name,
                                                              index))
