"""Fix: call a helper through ``jax.jit`` instead of eagerly.

Some primitives (``run_scoped`` among them) have no eager evaluation rule, so
``scaled(x)`` fails with "Evaluation rule for 'run_scoped' not implemented"
while ``jax.jit(scaled)(x)`` works.
"""

from __future__ import annotations

import re

import libcst as cst

from ._cst import dotted_name, locate, rewrite_calls
from ._lines import split_lines
from .errors import CannotRewrite
from .magics import EscapedLine, escape_magics, refuse_ipython_line, rewrite_cell

__all__ = ["wrap_call_in_jit", "wrap_call_in_jit_python"]

# `%time stmt`, `%timeit -n 10 -r 3 stmt`, optionally as `name = %time stmt`:
# the statement is Python, so a call in it can be fixed like any other.
_TIMING_MAGIC_RE = re.compile(
    r"(?P<head>[ \t]*(?:[\w.]+[ \t]*=[ \t]*)?%time(?:it)?"
    r"(?:[ \t]+-(?:[nrp][ \t]*\d+|[tcqov]))*[ \t]+)"
    r"(?P<stmt>[^\r\n]*?)(?P<tail>[ \t]*(?:\r\n|\r|\n)?)\Z"
)


def _is_callee(func: cst.BaseExpression, callee: str) -> bool:
    name = dotted_name(func)
    if name is None:
        return False
    if "." in callee:
        return name == callee
    # Tracebacks name the function, not how the cell reached it (`mod.scaled`).
    return name == callee or name.endswith("." + callee)


def _jit_expression(jit: str) -> cst.BaseExpression:
    try:
        return cst.parse_expression(jit)
    except cst.ParserSyntaxError:
        raise ValueError(f"jit must be a Python expression, got {jit!r}") from None


def _wrap(source: str, lineno: int, callee: str, jit: str, shown_lineno: int) -> str:
    jit_expr = _jit_expression(jit)
    located = locate(source, lineno)
    at_line = located.calls_at(lineno)
    targets = [site.node for site in at_line if _is_callee(site.node.func, callee)]
    if not targets:
        already = any(
            isinstance(site.node.func, cst.Call)
            and any(_is_callee(arg.value, callee) for arg in site.node.func.args)
            for site in at_line
        )
        if already:
            raise CannotRewrite(
                f"Line {shown_lineno} already calls {callee} through a wrapper such as "
                f"{jit}, so there is nothing to change."
            )
        raise CannotRewrite(f"Line {shown_lineno} has no call to {callee}(...) to wrap in {jit}.")

    def wrap(call: cst.Call) -> cst.Call:
        return call.with_changes(func=cst.Call(func=jit_expr, args=[cst.Arg(call.func)]))

    return rewrite_calls(located.module, targets, wrap).code


def wrap_call_in_jit_python(source: str, lineno: int, callee: str, jit: str = "jax.jit") -> str:
    """Like :func:`wrap_call_in_jit` for plain Python (no IPython syntax)."""
    return _wrap(source, lineno, callee, jit, lineno)


def _wrap_in_timing_magic(
    source: str, lineno: int, item: EscapedLine, callee: str, jit: str
) -> str:
    lines = split_lines(source)
    line = lines[lineno - 1]
    match = _TIMING_MAGIC_RE.match(line)
    if match is None or len(item.original) > 1:
        raise refuse_ipython_line(lineno, item)
    try:
        cst.parse_module(match["stmt"])
    except cst.ParserSyntaxError:
        raise CannotRewrite(
            f"Line {lineno} can't be parsed as Python, so the code can't be rewritten "
            f"automatically: {line.strip()!r}."
        ) from None
    statement = _wrap(match["stmt"], 1, callee, jit, lineno)
    lines[lineno - 1] = match["head"] + statement + match["tail"]
    return "".join(lines)


def wrap_call_in_jit(source: str, lineno: int, callee: str, jit: str = "jax.jit") -> str:
    """Turn ``callee(args)`` on 1-based ``lineno`` into ``jax.jit(callee)(args)``.

    ``callee`` is a plain name (also matching ``mod.callee``) or a dotted name
    matched exactly; ``jit`` is the text to wrap with.  ``source`` may be a
    notebook cell with IPython syntax, and a call inside ``%time``/``%timeit``
    on that line is fixed too.  Raises :class:`CannotRewrite`.
    """
    _, escaped = escape_magics(source)
    item = escaped.covering(lineno)
    if item is not None:
        return _wrap_in_timing_magic(source, lineno, item, callee, jit)
    return rewrite_cell(source, lambda code: wrap_call_in_jit_python(code, lineno, callee, jit))
