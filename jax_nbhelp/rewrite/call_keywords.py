"""Fix: pass keyword arguments at the user's own call of a function, on one line.

``layer_norm(x, w, b)`` becomes ``layer_norm(x, w, b, interpret=True)``;
``rpa.ragged_paged_attention(*args, sm_scale=s)`` gets its block sizes. The call is found
by the dotted name it is spelled with on that line (the innermost such call when calls
nest); a keyword it already passes has its value replaced. Everything else is kept byte for
byte.
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst

from ._cst import dotted_name, innermost, locate, rewrite_calls
from ._keywords import set_keyword
from .errors import CannotRewrite
from .magics import rewrite_line

__all__ = ["set_call_keywords"]


def _set_python(source: str, lineno: int, callee: str, keywords: Mapping[str, str]) -> str:
    values: dict[str, cst.BaseExpression] = {}
    for keyword, text in keywords.items():
        try:
            values[keyword] = cst.parse_expression(text)
        except cst.ParserSyntaxError:
            raise ValueError(f"{keyword}= must be a Python expression, got {text!r}") from None
    located = locate(source, lineno)
    sites = [site for site in located.calls_at(lineno) if dotted_name(site.node.func) == callee]
    if not sites:
        raise CannotRewrite(f"Line {lineno} has no call of {callee} to pass "
                            f"{', '.join(k + '=' for k in keywords)} to.")

    def change(call: cst.Call) -> cst.Call:
        for keyword, value in values.items():
            call = set_keyword(call, keyword, value)
        return call

    return rewrite_calls(located.module, [site.node for site in innermost(sites)], change).code


def set_call_keywords(source: str, lineno: int, callee: str, keywords: Mapping[str, str]) -> str:
    """Pass ``keywords`` (name -> expression, as text) to the call of ``callee`` (the dotted
    name as the line spells it) on 1-based ``lineno``. ``source`` is a cell (IPython syntax
    allowed) or a module. Raises :class:`CannotRewrite`."""
    return rewrite_line(source, lineno, lambda code: _set_python(code, lineno, callee, keywords))
