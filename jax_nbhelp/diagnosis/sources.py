"""Turn a traceback frame's filename into a place the user recognises: a cell or a file."""

from __future__ import annotations

import ast
import linecache
import os
import sys
import sysconfig
import traceback
from collections.abc import Mapping
from functools import cache, lru_cache
from types import TracebackType
from typing import Any

from jax_nbhelp.core.model import Location
from jax_nbhelp.core.session import RerunSource, current, typed_source


@cache
def _library_roots() -> tuple[str, ...]:
    """Folders whose files are libraries, never the user's own code."""
    roots = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            roots.add(os.path.realpath(path))
    # jax_nbhelp itself (the package folder: from a checkout it is not under site-packages)
    roots.add(os.path.realpath(os.path.dirname(os.path.dirname(__file__))))
    for site in sys.path:
        if site.endswith(("site-packages", "dist-packages")):
            roots.add(os.path.realpath(site))
    return tuple(sorted(roots))


_USER_PSEUDO_FILES = frozenset({"<timed exec>", "<timed eval>", "<magic-timeit>"})


def _cell_number(filename: str, shell: Any, reruns: Mapping[str, RerunSource]) -> int | None:
    rerun = reruns.get(filename)
    if rerun is not None:
        return rerun.cell
    mapping = getattr(getattr(shell, "compile", None), "_filename_map", None)
    if isinstance(mapping, dict) and filename in mapping:
        number = mapping[filename]
        return number if isinstance(number, int) else None
    # Older IPython names cells <ipython-input-N-hash>.
    if filename.startswith("<ipython-input-"):
        parts = filename[1:-1].split("-")
        if len(parts) >= 3 and parts[2].isdigit():
            return int(parts[2])
    return None


def _raw_cell_source(filename: str, number: int, shell: Any,
                     reruns: Mapping[str, RerunSource]) -> str | None:
    rerun = reruns.get(filename)
    if rerun is not None:
        return rerun.source
    return typed_source(shell, number)


def leading_blank_lines(lines: list[str]) -> int:
    """How many blank lines a cell starts with (IPython drops them before compiling)."""
    count = 0
    for line in lines:
        if line.strip():
            break
        count += 1
    return count


@lru_cache(maxsize=4096)
def is_user_file(filename: str) -> bool:
    """A real file the user wrote (not a library, not the interpreter's own code).

    Cached: every diagnosis asks for each frame of the traceback (dozens of JAX's files),
    and resolving a path's links costs a system call per component.
    """
    if filename.startswith("<") or not os.path.isabs(filename):
        return False
    real = os.path.realpath(filename)
    return not any(real == root or real.startswith(root + os.sep) for root in _library_roots())


# A file's top-level statement holding a line, as a source with the file's line numbers:
# (filename, its lines object, first line of the block) -> the source
_BLOCKS: dict[tuple[str, int, int], str] = {}
_IMPORTS: dict[tuple[str, int], tuple[int, ...]] = {}
_SMALL_FILE = 400  # lines: a file this short is given whole


def file_source(filename: str, lineno: int, lines: list[str] | None = None) -> str | None:
    """The source of the user's file as a diagnosis reads it: for a long module, only the
    top-level statement that holds ``lineno`` (a def with its decorators, a class) and the
    module's import lines, every other line left blank, so line numbers stay the file's and
    the cost of reading it does not grow with the file. Kept per file and block until the
    file changes (linecache hands a new list then)."""
    lines = linecache.getlines(filename) if lines is None else lines
    if not lines:
        return None
    if len(lines) <= _SMALL_FILE or not 0 < lineno <= len(lines):
        return "".join(lines)
    headers: list[int] = []  # the class lines around the block
    indent = ""
    first, last = _block_start(lines, lineno, indent), _block_end(lines, lineno, indent)
    # in a class, only the member that holds the line (a test class can be thousands of
    # lines long), under its class's header
    while True:
        head = first
        while head < lineno - 1 and lines[head].lstrip().startswith("@"):
            head += 1  # the class's decorators
        if not lines[head].lstrip().startswith("class ") or head >= lineno - 1:
            break
        body = next((line for line in lines[head + 1:last + 1]
                     if line.strip() and not line.lstrip().startswith("#")), "")
        indent = body[:len(body) - len(body.lstrip())]
        if len(indent) <= len(lines[head]) - len(lines[head].lstrip()):
            break
        headers += range(first, head + 1)
        first, last = (_block_start(lines, lineno, indent, stop=head + 1),
                       _block_end(lines, lineno, indent, stop=last + 1))
    key = (filename, id(lines), first)
    found = _BLOCKS.get(key)
    if found is None:
        imports = _IMPORTS.get((filename, id(lines)))
        if imports is None:
            imports = _import_lines(lines)
            _IMPORTS[(filename, id(lines))] = imports
        kept = set(imports) | set(headers) | set(range(first, last + 1))
        found = "".join(line if n in kept else "\n" for n, line in enumerate(lines[:last + 1]))
        try:
            ast.parse(found)
        except (SyntaxError, ValueError):  # a block this reading misjudged: the whole file
            found = "".join(lines)
        if len(_BLOCKS) > 256:
            _BLOCKS.clear()
            _IMPORTS.clear()
        _BLOCKS[key] = found
    return found


def _import_lines(lines: list[str]) -> tuple[int, ...]:
    """The lines (0-based) of the module's top-level imports, each whole (a parenthesized
    or backslashed list of names goes on over lines)."""
    found: list[int] = []
    going_on = False  # the import statement goes on to the next line
    for number, line in enumerate(lines):
        if not going_on and not line.startswith(("import ", "from ")):
            continue
        found.append(number)
        started = not going_on
        if line.rstrip().endswith("\\"):
            going_on = True
        elif started:
            going_on = "(" in line and ")" not in line
        else:
            going_on = going_on and ")" not in line and not _backslashed(lines, number)
    return tuple(found)


def _backslashed(lines: list[str], number: int) -> bool:
    """Whether the import going on at ``number`` went on by a backslash (it ends here)."""
    return number > 0 and lines[number - 1].rstrip().endswith("\\")


def _starts(line: str, indent: str) -> bool:
    """A line that starts a statement at ``indent`` (not blank, a comment, a deeper line or
    a closing bracket of a statement that goes on)."""
    if not line.strip() or not line.startswith(indent) or line[len(indent)].isspace():
        return False
    return not line[len(indent):].startswith(("#", ")", "]", "}"))


def _block_start(lines: list[str], lineno: int, indent: str, stop: int = 0) -> int:
    """The first line (0-based) of the statement at ``indent`` that holds line ``lineno``
    (its decorators included), not above line ``stop``."""
    start = lineno - 1
    while start > stop and not _starts(lines[start], indent):
        start -= 1
    while start > stop and lines[start - 1].startswith(indent + "@"):
        start -= 1
    return start


def _block_end(lines: list[str], lineno: int, indent: str, stop: int | None = None) -> int:
    """The last line (0-based) of the statement at ``indent`` that holds line ``lineno``:
    before the next line that starts one at that indent or less, not below ``stop``."""
    stop = len(lines) if stop is None else stop
    end = lineno
    while end < stop and not _outside(lines[end], indent):
        end += 1
    return end - 1


def _outside(line: str, indent: str) -> bool:
    """A line that starts a statement at ``indent`` or further out."""
    if not line.strip() or line.lstrip().startswith("#"):
        return False
    depth = len(line) - len(line.lstrip())
    return depth <= len(indent) and not line.lstrip().startswith((")", "]", "}"))


def locate(filename: str, lineno: int, function: str, shell: Any,
           reruns: Mapping[str, RerunSource] | None = None) -> Location | None:
    """The user-facing location of one frame, or None when it is library code; ``reruns``:
    the code fixes ran (the session's, the current one by default)."""
    reruns = current().reruns if reruns is None else reruns
    number = _cell_number(filename, shell, reruns)
    if number is not None:
        raw = _raw_cell_source(filename, number, shell, reruns)
        text = linecache.getline(filename, lineno).rstrip("\n")
        if raw is not None:
            raw_lines = raw.splitlines()
            # IPython drops a cell's leading blank lines before compiling it; otherwise the
            # transformed code keeps line numbers. Report the line as the user sees it in
            # the cell, with the text they typed (magics included).
            lineno += leading_blank_lines(raw_lines)
            if 0 < lineno <= len(raw_lines):
                text = raw_lines[lineno - 1]
        return Location(
            kind="cell",
            filename=filename,
            lineno=lineno,
            line=text,
            function=function,
            cell=number,
            source=raw,
            rewritten=filename in reruns and reruns[filename].rewritten,
        )
    if is_user_file(filename):
        lines = linecache.getlines(filename)
        return Location(
            kind="file",
            filename=filename,
            lineno=lineno,
            line=lines[lineno - 1].rstrip("\n") if 0 < lineno <= len(lines) else "",
            function=function,
            source=file_source(filename, lineno, lines),
        )
    if filename not in _USER_PSEUDO_FILES:
        return None  # library code, the common case: dozens of JAX's frames per error
    text = linecache.getline(filename, lineno).rstrip("\n")
    if text:
        # Code compiled by a cell magic (%%time's "<timed exec>"): it is the user's, but
        # jax_nbhelp cannot tell which cell it came from, so it is shown, never rewritten.
        return Location(kind="code", filename=filename, lineno=lineno, line=text, function=function)
    return None


def raising_cell_line(tb: TracebackType | None, shell: Any,
                      reruns: Mapping[str, RerunSource]) -> tuple[int, int, str] | None:
    """The cell an error stopped, as (its execution count, the cell line that raised, its
    source): the outermost cell frame of the traceback, or None when no cell was running."""
    for frame, lineno in traceback.walk_tb(tb):
        code = frame.f_code
        if _cell_number(code.co_filename, shell, reruns) is None:
            continue
        where = locate(code.co_filename, lineno, code.co_name, shell, reruns)
        if where is not None and where.cell is not None and where.source is not None:
            return where.cell, where.lineno, where.source
    return None
