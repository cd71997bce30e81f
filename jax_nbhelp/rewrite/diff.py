"""Show a proposed rewrite as a unified diff."""

from __future__ import annotations

import difflib
from functools import lru_cache

from ._lines import split_lines

__all__ = ["unified_diff"]

_NO_NEWLINE = "\\ No newline at end of file\n"


@lru_cache(maxsize=64)  # pure in its arguments; the same cell fails again and again
def unified_diff(old: str, new: str, name: str) -> str:
    """A unified diff from ``old`` to ``new`` with 3 lines of context.

    Headers are ``--- name`` and ``+++ name (fixed)``; the result is ``""``
    when nothing changed.  Notebook cells rarely end in a newline, so when
    neither side does the marker would only be noise and is left out; when
    just one side lacks it, it is marked the way ``diff`` and ``git`` mark it.
    Every line of the result ends in ``\\n``.
    """
    if not old.endswith(("\n", "\r")) and not new.endswith(("\n", "\r")):
        old, new = old + "\n", new + "\n"
    out: list[str] = []
    for line in difflib.unified_diff(
        split_lines(old), split_lines(new), fromfile=name, tofile=f"{name} (fixed)", n=3
    ):
        if line.endswith(("\n", "\r")):
            out.append(line)
        else:
            out.append(line + "\n" + _NO_NEWLINE)
    return "".join(out)
