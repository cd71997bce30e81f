"""Fix: replace a call that should not be there by its one argument
(``jax.random.wrap_key_data(key)`` -> ``key`` when ``key`` is a typed key already).

Only calls of ``function`` (however the module is spelled) on the given line whose single
argument is the name ``argument`` change.
"""

from __future__ import annotations

import libcst as cst

from ._cst import dotted_name, locate
from .errors import CannotRewrite
from .magics import rewrite_line

__all__ = ["unwrap_call"]


class _Unwrap(cst.CSTTransformer):
    def __init__(self, calls: set[int]) -> None:
        super().__init__()
        self._calls = calls

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if id(original_node) in self._calls:
            return updated_node.args[0].value
        return updated_node


def _unwrap_python(source: str, lineno: int, function: str, argument: str) -> str:
    located = locate(source, lineno)
    calls = {
        id(site.node) for site in located.calls_at(lineno)
        if (dotted_name(site.node.func) or "").rsplit(".", 1)[-1] == function
        and len(site.node.args) == 1 and site.node.args[0].keyword is None
        and site.node.args[0].star == ""
        and isinstance(site.node.args[0].value, cst.Name)
        and site.node.args[0].value.value == argument
    }
    if not calls:
        raise CannotRewrite(f"Line {lineno} has no {function}({argument}) call to replace.")
    return located.module.visit(_Unwrap(calls)).code


def unwrap_call(source: str, lineno: int, function: str, argument: str) -> str:
    """Replace ``function(argument)`` on 1-based ``lineno`` of ``source`` (a cell, IPython
    syntax allowed, or a module) by ``argument``. Raises :class:`CannotRewrite`."""
    return rewrite_line(source, lineno,
                        lambda code: _unwrap_python(code, lineno, function, argument))
