"""Turn a traceback frame's filename into a place the user recognises: a cell or a file."""

from __future__ import annotations

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
    roots.add(os.path.realpath(os.path.dirname(os.path.dirname(__file__))) + os.sep + "jax_nbhelp")
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
            rewritten=filename in reruns,
        )
    if is_user_file(filename):
        lines = linecache.getlines(filename)
        return Location(
            kind="file",
            filename=filename,
            lineno=lineno,
            line=lines[lineno - 1].rstrip("\n") if 0 < lineno <= len(lines) else "",
            function=function,
            source="".join(lines) or None,
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
