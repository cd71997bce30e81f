"""Read (not change) the call that passes ``collective_axes=`` on a given line.

Fixes need to know what the user asked for: which axis the allocation is shared along, and
which memory it allocates (Mosaic GPU's ``SMEM``/``GMEM``/barriers or a TPU space).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache

import libcst as cst

from ._cst import innermost, locate
from .errors import CannotRewrite
from .magics import escape_magics

__all__ = ["CollectiveCall", "collective_call_at"]

KEYWORD = "collective_axes"


@dataclass(frozen=True)
class CollectiveCall:
    """The call's source text and its axes when they are written as string literals."""

    text: str
    axes: tuple[str, ...] | None  # None: not literal strings (a variable, None, ...)


def _literal_axes(value: cst.BaseExpression) -> tuple[str, ...] | None:
    code = cst.Module(body=[]).code_for_node(value)
    try:
        evaluated = ast.literal_eval(code)
    except (ValueError, SyntaxError):
        return None
    if isinstance(evaluated, str):
        return (evaluated,)
    if isinstance(evaluated, tuple | list) and all(isinstance(a, str) for a in evaluated):
        return tuple(evaluated)
    return None


def collective_call_at(source: str, lineno: int) -> CollectiveCall:
    """The innermost call on ``lineno`` (or in the decorators of a ``def`` on it) that passes
    ``collective_axes=``. Raises :class:`CannotRewrite` when there is none."""
    found = _collective_call_at(source, lineno)
    if isinstance(found, str):
        raise CannotRewrite(found)
    return found


# Cached by the source's text: each error of a helper asks again of the same cell, and
# parsing it and writing the call back out are most of a later diagnosis's time.
@lru_cache(maxsize=32)
def _collective_call_at(source: str, lineno: int) -> CollectiveCall | str:
    try:
        return _find(source, lineno)
    except CannotRewrite as exc:
        return str(exc)


def _find(source: str, lineno: int) -> CollectiveCall:
    code, _ = escape_magics(source)
    located = locate(code, lineno)
    sites = located.calls_at(lineno) + located.decorator_calls_at(lineno)
    with_keyword = [
        site for site in sites
        if any(arg.keyword is not None and arg.keyword.value == KEYWORD for arg in site.node.args)
    ]
    chosen = innermost(with_keyword)
    if not chosen:
        raise CannotRewrite(f"Line {lineno} has no call that passes {KEYWORD}=.")
    call = chosen[0].node
    value = next(arg.value for arg in call.args
                 if arg.keyword is not None and arg.keyword.value == KEYWORD)
    return CollectiveCall(
        text=located.module.code_for_node(call),
        axes=_literal_axes(value),
    )
