"""Hide IPython-only syntax from libcst, and put it back after a rewrite.

A cell may hold line magics, shell escapes, ``obj?`` help and a leading cell
magic, none of which is Python.  Each such line is swapped for a harmless call
with the same indentation, one per physical line, so that traceback line
numbers keep pointing at the same code while libcst works on the cell.
"""

from __future__ import annotations

import importlib
import re
import tokenize
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ._lines import indentation, line_ending, split_lines, unparsable_message
from .errors import CannotRewrite

__all__ = [
    "PLACEHOLDER_NAME",
    "EscapedLine",
    "EscapedMagics",
    "check_parses",
    "escape_magics",
    "leading_cell_magic",
    "refuse_ipython_line",
    "restore_magics",
    "rewrite_cell",
]

PLACEHOLDER_NAME = "__jax_nbhelp_magic__"

# Cell magics that run their body as ordinary Python in the user namespace, so
# a fix to the body is a fix to the cell.
PYTHON_CELL_MAGICS = frozenset(
    {"time", "timeit", "capture", "prun", "debug", "lprun", "memit", "snakeviz", "scalene"}
)

_CELL_MAGIC_RE = re.compile(r"[ \t]*%%(\w*)")
_CELL_MAGIC_HELP_RE = re.compile(r"[ \t]*%%\w+\?")
# What IPython accepts in front of a trailing `?`/`??`: an optional %/%% and a
# dotted name, possibly with literal integer subscripts and `*` wildcards.
_HELP_TARGET_RE = re.compile(r"%{0,2}(?!\d)[\w*]+(?:\.(?!\d)[\w*]+|\[-?\d+\])*\?\??\s*\Z")
_NON_CODE_TOKENS = frozenset(
    {
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.NL,
        tokenize.NEWLINE,
        tokenize.COMMENT,
        tokenize.ENDMARKER,
    }
)


@dataclass(frozen=True)
class EscapedLine:
    """One stretch of IPython syntax and the placeholder standing in for it."""

    lineno: int  # 1-based line of the first original line
    original: tuple[str, ...]  # the lines as written, with their line endings
    placeholder: tuple[str, ...]  # same count, same endings


@dataclass(frozen=True)
class EscapedMagics:
    """What :func:`restore_magics` needs to undo :func:`escape_magics`."""

    lines: tuple[EscapedLine, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.lines)

    def covering(self, lineno: int) -> EscapedLine | None:
        """The escaped stretch that contains 1-based ``lineno``, if any."""
        for item in self.lines:
            if item.lineno <= lineno < item.lineno + len(item.original):
                return item
        return None


def refuse_ipython_line(lineno: int, item: EscapedLine) -> CannotRewrite:
    """The error for a fix aimed at a line that is IPython syntax, not Python."""
    text = item.original[lineno - item.lineno].strip()
    return CannotRewrite(
        f"Line {lineno} is IPython syntax ({text!r}), so the call on it can't be "
        "rewritten automatically."
    )


def _transformers() -> Any:
    # Typed as Any on purpose: IPython's finders are unannotated, and only
    # their documented find() results are used here.  Imported late so that
    # importing this module stays cheap.
    return importlib.import_module("IPython.core.inputtransformer2")


def _continued_end(lines: Sequence[str], start: int) -> int:
    """Last line of a backslash-continued run starting at ``start`` (0-based)."""
    end = start
    while end + 1 < len(lines) and lines[end].rstrip("\r\n").endswith("\\"):
        end += 1
    return end


def _span_of(it2: Any, lines: Sequence[str], hit: Any, first_line: int) -> tuple[int, int] | None:
    """0-based inclusive line span of a finder hit, or None if IPython would skip it."""
    if isinstance(hit, it2.HelpEnd):
        # IPython drops `?` lines it can't read as a name (it raises SyntaxError
        # internally and leaves the line alone); mirror that.
        piece = "".join(lines[hit.start_line : hit.q_line + 1])[hit.start_col :]
        if not _HELP_TARGET_RE.search(piece):
            return None
        return first_line, hit.q_line
    return first_line, _continued_end(lines, hit.start_line)


def _find_next(lines: list[str], resume: int) -> tuple[int, int] | None:
    """Span of the first piece of IPython syntax starting at or after ``resume``."""
    it2 = _transformers()
    finders = (it2.MagicAssign, it2.SystemAssign, it2.EscapedCommand, it2.HelpEnd)
    for logical in it2.make_tokens_by_line(lines):
        code = [tok for tok in logical if tok.type not in _NON_CODE_TOKENS]
        if not code:
            continue
        first_line = code[0].start[0] - 1
        if first_line < resume:
            continue
        # Each finder only looks at the logical line it is given, so an odd
        # line IPython itself would skip doesn't hide the lines after it.
        hits = [hit for cls in finders if (hit := cls.find([logical])) is not None]
        for hit in sorted(hits, key=lambda h: h.sortby()):
            span = _span_of(it2, lines, hit, first_line)
            if span is not None:
                return span
    return None


def _escape(lines: list[str], start: int, end: int, escaped: list[EscapedLine]) -> None:
    indent = indentation(lines[start])
    statement = f"{indent}{PLACEHOLDER_NAME}({len(escaped)})"
    original = tuple(lines[start : end + 1])
    placeholder = tuple(statement + line_ending(line) for line in original)
    lines[start : end + 1] = placeholder
    escaped.append(EscapedLine(start + 1, original, placeholder))


def leading_cell_magic(lines: Sequence[str]) -> tuple[int, str] | None:
    """The 0-based line of a cell's leading ``%%magic`` and the magic's name, if any."""
    # IPython drops leading blank lines before it looks for `%%`.
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return None
    match = _CELL_MAGIC_RE.match(lines[first])
    if match is None or _CELL_MAGIC_HELP_RE.match(lines[first]):
        return None
    return first, match.group(1)


def _escape_cell_magic(lines: list[str], escaped: list[EscapedLine]) -> int:
    """Escape a leading ``%%magic`` line; return the first line left to scan."""
    found = leading_cell_magic(lines)
    if found is None:
        return next((i for i, line in enumerate(lines) if line.strip()), 0)
    first, name = found
    if name not in PYTHON_CELL_MAGICS:
        raise CannotRewrite(
            f"This cell starts with %%{name}, so its body is not Python code "
            "and can't be rewritten."
        )
    _escape(lines, first, first, escaped)
    return first + 1


@lru_cache(maxsize=256)
def escape_magics(source: str) -> tuple[str, EscapedMagics]:
    """Replace IPython-only lines with same-length Python placeholders.

    The result has exactly as many lines as ``source``.  Raises
    :class:`CannotRewrite` for a cell magic whose body isn't Python.
    (Cached: the result is immutable, and the same cell is escaped by every diagnosis
    and rewrite that looks at it.)
    """
    lines = split_lines(source)
    escaped: list[EscapedLine] = []
    resume = _escape_cell_magic(lines, escaped)
    while (span := _find_next(lines, resume)) is not None:
        start, end = span
        _escape(lines, start, end, escaped)
        # Everything before the span was already scanned, and the placeholder
        # can't match again, so the next search starts after it.
        resume = end + 1
    return "".join(lines), EscapedMagics(tuple(escaped))


def _body(line: str) -> str:
    return line.rstrip("\r\n")


def restore_magics(source: str, escaped: EscapedMagics) -> str:
    """Put the original IPython lines back in place of their placeholders."""
    lines = split_lines(source)
    search_from = 0
    for item in escaped.lines:
        wanted = [_body(line) for line in item.placeholder]
        found = next(
            (
                i
                for i in range(search_from, len(lines) - len(wanted) + 1)
                if [_body(line) for line in lines[i : i + len(wanted)]] == wanted
            ),
            None,
        )
        if found is None:
            raise CannotRewrite(
                f"The rewrite lost the IPython line {_body(item.original[0]).strip()!r}, "
                "so the result was discarded."
            )
        for offset, original in enumerate(item.original):
            # Keep the rewritten text's line ending: it may have added a final newline.
            current = lines[found + offset]
            lines[found + offset] = _body(original) + line_ending(current)
        search_from = found + len(wanted)
    return "".join(lines)


@lru_cache(maxsize=256)
def _unparsable_line(escaped_source: str) -> int | None:
    """The line libcst cannot parse, or None (cached: a cell is checked at every error)."""
    import libcst

    try:
        libcst.parse_module(escaped_source)
    except libcst.ParserSyntaxError as err:
        return err.editor_line
    return None


def check_parses(escaped_source: str, original_source: str) -> None:
    """Raise :class:`CannotRewrite` naming the offending line if libcst can't parse."""
    line = _unparsable_line(escaped_source)
    if line is not None:
        raise CannotRewrite(unparsable_message(escaped_source, line, shown=original_source))


def rewrite_cell(source: str, transform: Callable[[str], str]) -> str:
    """Apply a Python-to-Python ``transform`` to a cell that may contain magics."""
    escaped_source, escaped = escape_magics(source)
    check_parses(escaped_source, source)
    return restore_magics(transform(escaped_source), escaped)


def rewrite_line(source: str, lineno: int, transform: Callable[[str], str]) -> str:
    """:func:`rewrite_cell` for a rewrite of the statement on 1-based ``lineno``, refused
    when that line is IPython syntax (a magic, ``!cmd``), which no Python rewrite changes."""
    _, escaped = escape_magics(source)
    item = escaped.covering(lineno)
    if item is not None:
        raise refuse_ipython_line(lineno, item)
    return rewrite_cell(source, transform)
