"""Fix: run a jitted helper inside an interpreted GPU kernel instead of under plain jit.

``jax.jit(helper)(x)`` becomes ``runner(helper, "axis")(x)``, where ``runner`` is code the
fix adds at the top of the cell (generated for the installed JAX by the caller).
"""

from __future__ import annotations

import libcst as cst

from ._cst import dotted_name, locate, rewrite_calls
from .errors import CannotRewrite
from .magics import escape_magics, refuse_ipython_line, rewrite_cell

__all__ = ["jit_call_to_kernel", "jit_call_to_kernel_python"]


def _is_plain_jit(call: cst.Call) -> bool:
    name = dotted_name(call.func) or ""
    if not (name == "jit" or name.endswith(".jit")):
        return False
    # Options such as static_argnums change how the helper is called: leave those alone.
    return len(call.args) == 1 and call.args[0].keyword is None and not call.args[0].star


def _quoted(text: str) -> str:
    return f'"{text}"' if text.isprintable() and not set(text) & {'"', "\\"} else repr(text)


def _swap(source: str, lineno: int, runner: str, axis: str) -> str:
    located = locate(source, lineno)
    jits = [
        site.node.func
        for site in located.calls_at(lineno)
        if isinstance(site.node.func, cst.Call) and _is_plain_jit(site.node.func)
    ]
    if not jits:
        raise CannotRewrite(
            f"Line {lineno} does not call jax.jit(helper)(...) directly (with no other "
            "jit options), so jax_nbhelp cannot tell which function to run in the kernel."
        )

    def change(call: cst.Call) -> cst.BaseExpression:
        return cst.Call(
            func=cst.parse_expression(runner),
            args=[
                cst.Arg(call.args[0].value,
                        comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                cst.Arg(cst.SimpleString(_quoted(axis))),
            ],
        )

    return rewrite_calls(located.module, jits, change).code


def jit_call_to_kernel_python(
    source: str, lineno: int, runner: str, axis: str, prelude: str
) -> str:
    """Like :func:`jit_call_to_kernel` for plain Python (no IPython syntax)."""
    return prelude + _swap(source, lineno, runner, axis)


def jit_call_to_kernel(source: str, lineno: int, runner: str, axis: str, prelude: str) -> str:
    """Replace ``jit(f)`` on 1-based ``lineno`` with ``runner(f, axis)``; put ``prelude``
    (the code defining ``runner``) at the top of the cell. Raises :class:`CannotRewrite`."""
    _, escaped = escape_magics(source)
    item = escaped.covering(lineno)
    if item is not None:
        raise refuse_ipython_line(lineno, item)
    if source.lstrip().startswith("%%"):
        raise CannotRewrite(
            "The cell starts with a cell magic, so code cannot be added above it; run the "
            "helper in a kernel from a plain cell."
        )
    return rewrite_cell(source, lambda code: jit_call_to_kernel_python(code, lineno, runner,
                                                                       axis, prelude))
