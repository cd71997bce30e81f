"""Line splitting that agrees with Python's own idea of a line."""

from __future__ import annotations

import ast
import re

# str.splitlines() also breaks on \x0b, \x0c, \x1c, \u2028 and friends, which
# Python source treats as ordinary characters; splitting there would shift
# every line number after them.
_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(text: str) -> list[str]:
    """Split ``text`` into lines, each keeping its own line ending."""
    return _LINE_RE.findall(text)


def line_ending(line: str) -> str:
    """The ``\\n``/``\\r\\n``/``\\r`` at the end of ``line``, or ``""``."""
    return line[len(line.rstrip("\r\n")) :]


def indentation(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t\f"))]


def unparsable_message(source: str, fallback_lineno: int, shown: str | None = None) -> str:
    """A user-facing sentence for ``source`` that libcst couldn't parse.

    The quoted line is taken from ``shown`` (the text the user wrote, which may
    differ from ``source`` on escaped IPython lines) when it is given.

    CPython's compiler names the line users expect (libcst often reports the
    line after the mistake), so it is asked first; ``fallback_lineno`` is used
    when only libcst objects to the code.
    """
    try:
        compile(source, "<cell>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as err:
        lineno = err.lineno or fallback_lineno
    except ValueError:  # NUL bytes on Python < 3.12
        lineno = fallback_lineno
    else:
        lineno = fallback_lineno
    lines = split_lines(source if shown is None else shown)
    lineno = min(max(lineno, 1), max(len(lines), 1))
    text = lines[lineno - 1].strip() if lines else ""
    return (
        f"Line {lineno} can't be parsed as Python, so the code can't be rewritten "
        f"automatically: {text!r}."
    )
