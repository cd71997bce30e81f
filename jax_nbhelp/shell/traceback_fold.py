"""JAX's internal frames folded out of IPython's traceback, where a card explains the error and
nothing else folds them: VS Code, Colab, Notebook 6, JupyterLab without jax_nbhelp's extension,
terminal IPython.

IPython lays a traceback out as a list of entries (its "structured traceback"): a header, one
entry a frame, ``[... skipping hidden N frame]`` for frames JAX marks hidden, the exception's
line, and the same again for each exception of a chain. Each run of JAX's own frames becomes
one line, ``[... 14 frames inside JAX: `%jax_nbhelp traceback` shows them]``; the user's
frames, the frame that raised (the last frame before an exception's line) and every other
entry stay exactly as IPython wrote them. The whole traceback is kept for ``%jax_nbhelp
traceback``.

The JupyterLab extension folds the traceback itself, in the page, and keeps the whole text in
the notebook: it says so when it meets a kernel (``FRONTEND_FOLDS`` in the kernel's
environment), and then nothing here changes the traceback. ``c.JaxNbhelp.fold_traceback =
False`` keeps IPython's as it is everywhere.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

# set in the kernel's environment by the JupyterLab extension when it meets the kernel
FRONTEND_FOLDS = "JAX_NBHELP_FRONTEND_FOLDS"
COMMAND = "%jax_nbhelp traceback"

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# "File /path/x.py:12, in f(...)" (IPython 8 and later), "/path/x.py in f(...)" (IPython 7)
_FRAME = re.compile(r"^\s*(?:File )?(?P<path>(?:[A-Za-z]:)?[^\s:]+\.py)(?::\d+)?(?:,| in )")
_HIDDEN = re.compile(r"^\s*\[\.\.\. skipping hidden (?P<count>\d+) frame")


def folded_line(count: int) -> str:
    what = "1 frame" if count == 1 else f"{count} frames"
    return f"    [... {what} inside JAX: `{COMMAND}` shows {'it' if count == 1 else 'them'}]\n"


def _kind(entry: str, inside_jax: Callable[[str], bool]) -> tuple[str, int]:
    """("jax", frames) for a frame of JAX's or a run of hidden ones, ("frame", 1) for any
    other frame, ("other", 0) for the rest (headers, an exception's line, separators)."""
    first = _ANSI.sub("", entry).lstrip("\n").split("\n", 1)[0]
    hidden = _HIDDEN.match(first)
    if hidden is not None:
        return "jax", int(hidden["count"])
    frame = _FRAME.match(first)
    if frame is not None:
        return ("jax", 1) if inside_jax(frame["path"]) else ("frame", 1)
    if first.startswith(("Cell In[", "<ipython-input-", "Input In [")):
        return "frame", 1
    return "other", 0


def fold(entries: Sequence[str], inside_jax: Callable[[str], bool]) -> list[str]:
    """``entries`` with each run of JAX's frames as one line. The frame that raised (the last
    frame before an exception's line) is kept as it is, in the exception shown last and in
    any exception of the chain with a frame of the user's; an exception of the chain raised
    wholly inside JAX (``JaxStackTraceBeforeTransformation``) keeps only its line."""
    kinds = [_kind(entry, inside_jax) for entry in entries]
    groups, group = [], 0
    for entry in entries:  # each exception of the chain starts with IPython's header
        if "Traceback (most recent call last)" in _ANSI.sub("", entry):
            group += 1
        groups.append(group)
    users = {groups[i] for i, (kind, _) in enumerate(kinds) if kind == "frame"}
    out: list[str] = []
    index = 0
    while index < len(entries):
        if kinds[index][0] != "jax":
            out.append(entries[index])
            index += 1
            continue
        end = index
        while end < len(entries) and kinds[end][0] == "jax":
            end += 1
        # the run ends a group of frames: its last real frame is the one that raised
        raising = None
        if (end >= len(entries) or kinds[end][0] == "other") and (
                groups[index] == group or groups[index] in users):
            raising = next((i for i in range(end - 1, index - 1, -1)
                            if not _HIDDEN.match(_ANSI.sub("", entries[i]).lstrip("\n"))), None)
        run = [i for i in range(index, end) if i != raising]
        count = sum(kinds[i][1] for i in run)
        if not any(not _HIDDEN.match(_ANSI.sub("", entries[i]).lstrip("\n")) for i in run):
            # only IPython's "skipping hidden" lines: whose frames they are is not known
            out += [entries[i] for i in range(index, end)]
            index = end
            continue
        if count:
            out.append(folded_line(count))
        if raising is not None:
            out.append(entries[raising])
        index = end
    return out


def should_fold(shell: Any, configured: bool) -> bool:
    """Whether this shell's tracebacks are folded here: not where the frontend folds them
    (the JupyterLab extension said so), nor where the configuration says not to."""
    return configured and os.environ.get(FRONTEND_FOLDS) != "1" and shell is not None


@contextlib.contextmanager
def folding(shell: Any, inside_jax: Callable[[str], bool],
            keep: Callable[[list[str]], None]) -> Iterator[None]:
    """While IPython shows a traceback, fold what its formatter returns; ``keep`` gets the
    whole one. A failure to fold leaves IPython's traceback as it is."""
    formatter = shell.InteractiveTB
    own = formatter.__dict__.get("structured_traceback", _NONE)
    original = formatter.structured_traceback

    def structured_traceback(*args: Any, **kwargs: Any) -> Any:
        entries = original(*args, **kwargs)
        try:
            whole = list(entries)
            keep(whole)
            return fold(whole, inside_jax)
        except Exception:
            return entries

    formatter.structured_traceback = structured_traceback
    try:
        yield
    finally:
        if own is _NONE:
            formatter.__dict__.pop("structured_traceback", None)
        else:
            formatter.structured_traceback = own


_NONE = object()
