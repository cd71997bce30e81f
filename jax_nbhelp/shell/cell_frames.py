"""Formatting a traceback through a cell without scanning every module per frame.

IPython's traceback reads each frame's source with ``inspect.getsourcelines``, which asks
``inspect.getmodule`` for the frame's module. A cell's file (``<ipython-input-3-...>``, or
ipykernel's ``/tmp/ipykernel_.../123.py``) belongs to no module, so each such frame misses
``inspect.modulesbyfile``, walks all of ``sys.modules`` to look again, and misses again: a
RecursionError through 3,000 cell frames walks them some 24,000 times, and IPython formats
a failing cell's traceback twice (to show it, then to store it with the history). The
walk costs in proportion to the modules loaded, so every module a notebook tool imports
(this one's catalog and libcst, some 160) made every such traceback slower: 13-20% for
that RecursionError.

When jax_nbhelp shows IPython's traceback, the cell files of its frames are entered in
that cache as what the walk concludes: no module. ``getmodule`` then answers at once,
with the same ``None``, so the traceback is the same text. The entries of the last error
stay until the next error (IPython's second formatting comes after the hook) and go
when the extension is unloaded.
"""

from __future__ import annotations

import inspect
import linecache
import os
from types import TracebackType

# Looked up with sys.modules.get(), which finds nothing, so getmodule returns None: what
# the walk over sys.modules concludes for a cell's file.
_NO_MODULE = "<jax_nbhelp: a cell's code, of no module>"
_MAX_EXCEPTIONS = 200  # a chain longer than this is formatted the slow way past it


def _is_cell(name: str) -> bool:
    """Source IPython put in linecache itself: with no modification time (IPython 8+), or in
    its own side cache (IPython 7); the kind no module's file can be."""
    entry = linecache.cache.get(name)
    if entry is not None and len(entry) == 4 and entry[1] is None:
        return True
    older = getattr(linecache, "_ipython_cache", None)
    return isinstance(older, dict) and name in older


def _cell_files(value: BaseException, tb: TracebackType | None) -> set[str]:
    """The files of the frames IPython will format that are cells (``_is_cell``)."""
    files: set[str] = set()
    seen: set[int] = set()
    pending: list[tuple[BaseException | None, TracebackType | None]] = [(value, tb)]
    while pending and len(seen) < _MAX_EXCEPTIONS:
        error, trace = pending.pop()
        if error is not None:
            if id(error) in seen:
                continue  # cause cycles
            seen.add(id(error))
            pending += [(BaseException.__getattribute__(error, name), None)
                        for name in ("__cause__", "__context__")]
            if trace is None:
                trace = BaseException.__getattribute__(error, "__traceback__")
        while trace is not None:
            name = trace.tb_frame.f_code.co_filename
            if _is_cell(name):
                files.add(name)
            trace = trace.tb_next
    return files


class CellFiles:
    """The cache entries this process's hook made for the last error's cells."""

    def __init__(self) -> None:
        self._added: list[str] = []

    def enter(self, value: BaseException, tb: TracebackType | None) -> None:
        """Make ``getmodule`` answer at once for the cells of this traceback (and forget
        the last error's)."""
        self.clear()
        try:
            for name in _cell_files(value, tb):
                for key in (name, os.path.normcase(os.path.abspath(name))):
                    if key not in inspect.modulesbyfile:
                        inspect.modulesbyfile[key] = _NO_MODULE
                        self._added.append(key)
        except Exception:  # a hostile exception: formatted the slow way, as IPython would
            pass

    def clear(self) -> None:
        for key in self._added:
            if inspect.modulesbyfile.get(key) == _NO_MODULE:
                del inspect.modulesbyfile[key]
        self._added.clear()
