"""Fix: make a ``run_scoped`` call collective along a Mosaic GPU kernel's thread axis.

Inside ``plgpu.kernel(..., num_threads=N, thread_name=AXIS)`` every scoped allocation is
shared by the kernel's threads, so GPU interpret mode insists on ``collective_axes=AXIS``.
The rewrite sets (or adds) that keyword on the ``run_scoped`` call on one line, and only
when what it replaces is written as a literal (a string, a tuple or list of strings, or
``None``): a variable may be used elsewhere, and is left to the user.
"""

from __future__ import annotations

import ast

import libcst as cst

from ._cst import CallSite, dotted_name, innermost, locate, rewrite_calls
from ._keywords import set_keyword
from .errors import CannotRewrite
from .magics import rewrite_line

__all__ = ["KEYWORD", "set_collective_axes", "set_collective_axes_python"]

KEYWORD = "collective_axes"


def _keyword_value(call: cst.Call) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == KEYWORD:
            return arg.value
    return None


def _is_run_scoped(call: cst.Call) -> bool:
    return (dotted_name(call.func) or "").rsplit(".", 1)[-1] == "run_scoped"


def _is_literal(value: cst.BaseExpression) -> bool:
    code = cst.Module(body=[]).code_for_node(value)
    try:
        evaluated = ast.literal_eval(code.strip())
    except (ValueError, SyntaxError):
        return False
    if evaluated is None or isinstance(evaluated, str):
        return True
    return isinstance(evaluated, tuple | list) and all(isinstance(a, str) for a in evaluated)


def _target(sites: list[CallSite], lineno: int) -> cst.Call:
    chosen = innermost([site for site in sites if _is_run_scoped(site.node)])
    if not chosen:
        raise CannotRewrite(f"Line {lineno} has no run_scoped(...) call to set {KEYWORD} on.")
    if len(chosen) > 1:
        raise CannotRewrite(
            f"Line {lineno} has {len(chosen)} run_scoped(...) calls; jax_nbhelp cannot tell "
            "which one failed."
        )
    call = chosen[0].node
    if any(arg.star == "*" for arg in call.args):
        raise CannotRewrite(
            f"The run_scoped call on line {lineno} passes *args, which may already hold "
            f"{KEYWORD}."
        )
    value = _keyword_value(call)
    if value is not None and not _is_literal(value):
        raise CannotRewrite(
            f"The run_scoped call on line {lineno} takes {KEYWORD} from an expression "
            "jax_nbhelp cannot read as a literal; set it to the kernel's thread axis where "
            "that value is made."
        )
    return call


def set_collective_axes_python(source: str, lineno: int, axis: str) -> str:
    """Like :func:`set_collective_axes` for plain Python (no IPython syntax)."""
    located = locate(source, lineno)
    call = _target(located.calls_at(lineno) + located.decorator_calls_at(lineno), lineno)
    value = cst.SimpleString(f"\"{axis}\"")
    return rewrite_calls(located.module, [call],
                         lambda node: set_keyword(node, KEYWORD, value)).code


def set_collective_axes(source: str, lineno: int, axis: str) -> str:
    """Set ``collective_axes=axis`` on the ``run_scoped`` call at 1-based ``lineno``.

    The keyword's literal value is replaced, or the keyword is added when missing; the rest
    of the cell is kept byte for byte. Raises :class:`CannotRewrite`.
    """
    if not axis.isidentifier():
        raise CannotRewrite(f"{axis!r} does not look like an axis name.")
    return rewrite_line(source, lineno, lambda code: set_collective_axes_python(code, lineno, axis))
