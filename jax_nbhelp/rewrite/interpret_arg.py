"""Fix: give a kernel-building call the interpret mode that fits it.

``pl.pallas_call(...)``, ``pl.kernel(...)``, ``pl.core_map(mesh)`` and ``plgpu.kernel(...)``
(directly, as decorators, or through ``functools.partial``) get ``interpret=<value>``; an
existing ``interpret=`` has its value replaced. Everything else is kept byte for byte.
"""

from __future__ import annotations

import libcst as cst

from ._cst import CallSite, dotted_name, locate, rewrite_calls
from ._keywords import set_keyword
from ._lines import line_ending, split_lines
from .errors import CannotRewrite
from .magics import rewrite_line

__all__ = ["KEYWORD", "add_import", "set_interpret", "set_interpret_python"]

KEYWORD = "interpret"
_ALWAYS = frozenset({"pallas_call", "core_map"})


def _is_constructor(name: str | None) -> bool:
    if not name:
        return False
    last = name.rsplit(".", 1)[-1]
    return last in _ALWAYS or (last == "kernel" and "." in name)


def is_kernel_call(call: cst.Call) -> bool:
    """Whether ``call`` builds a Pallas kernel (itself, or as ``partial(constructor, ...)``)."""
    name = dotted_name(call.func)
    if _is_constructor(name):
        return True
    if name is not None and name.rsplit(".", 1)[-1] == "partial" and call.args:
        first = call.args[0]
        return first.keyword is None and not first.star and _is_constructor(
            dotted_name(first.value)
        )
    return False


def _targets(sites: list[CallSite], lineno: int) -> list[CallSite]:
    kernel_sites = [site for site in sites if is_kernel_call(site.node)]
    starting = [site for site in kernel_sites if site.first_line == lineno]
    return starting or kernel_sites


def set_interpret_python(source: str, lineno: int, value: str) -> str:
    """Like :func:`set_interpret` for plain Python (no IPython syntax)."""
    try:
        expression = cst.parse_expression(value)
    except cst.ParserSyntaxError:
        raise ValueError(f"value must be a Python expression, got {value!r}") from None
    located = locate(source, lineno)
    targets = _targets(located.calls_at(lineno), lineno) or _targets(
        located.decorator_calls_at(lineno), lineno
    )
    if not targets:
        raise CannotRewrite(
            f"Line {lineno} has no pallas_call, pl.kernel, core_map or plgpu.kernel call to "
            f"give {KEYWORD}= to."
        )
    return rewrite_calls(
        located.module, [site.node for site in targets],
        lambda call: set_keyword(call, KEYWORD, expression),
    ).code


def set_interpret(source: str, lineno: int, value: str) -> str:
    """Give the kernel-building call at 1-based ``lineno`` ``interpret=value``.

    ``source`` is a notebook cell (IPython syntax allowed) or a module; ``value`` is the
    expression to pass, as text. Raises :class:`CannotRewrite`.
    """
    return rewrite_line(source, lineno, lambda code: set_interpret_python(code, lineno, value))


def add_import(source: str, statement: str) -> str:
    """``source`` with ``statement`` (one import line) added at its top, unless present.

    The line goes after a leading ``%%magic`` line, so the cell magic stays first.
    """
    lines = split_lines(source)
    if any(line.strip() == statement for line in lines):
        return source
    ending = next((line_ending(line) for line in lines if line_ending(line)), "\n")
    at = 0
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        at = first + 1
        if not line_ending(lines[first]):
            lines[first] += ending
    lines.insert(at, statement + ending)
    return "".join(lines)
