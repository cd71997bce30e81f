"""What one loaded jax_nbhelp remembers: the session the extension owns.

``%load_ext jax_nbhelp`` starts a :class:`Session` for its shell and ``%unload_ext`` ends it
(``shell/extension.py``); the session is handed to what needs it: the hook and the card
registry it fills (``cards``), the planner the raised lines of the cells (``raised``), the
interpreted-fix estimates this machine's speed (``speed``). Each part is a small object of
its own with the few operations its users need, not a field anyone may rewrite. ``current()``
is the one way in for the entry points that arrive from outside with no session in hand
(the JupyterLab extension's calls, the public ``jax_nbhelp.last()``); before any load it is a
session of no shell, so jax_nbhelp used as a library works the same.
"""

from __future__ import annotations

import traceback
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jax_nbhelp.core.model import CellEdit, CellRun, Checkup, Diagnosis, Fix, FixResult


@dataclass(frozen=True)
class RerunSource:
    """Source that a fix executed, so errors raised from it are located in it."""

    cell: int | None
    source: str
    # False: the cell's own code, run without the cell magic's line (the doctor's
    # `%%jax_nbhelp check auto`): a place in it is the cell's, not "as re-run by jax_nbhelp"
    rewritten: bool = True


@dataclass(frozen=True)
class FailedFix:
    """A fix whose run raised and was undone, while its new error is being diagnosed.

    The names it rebound were restored, so a fix for the new error must run again what
    that fix ran: the runs before the one that raised, that run from its start, and the
    runs after it.
    """

    filename: str  # the code that raised
    run: CellRun  # the run that raised
    before: tuple[CellRun, ...]
    after: tuple[CellRun, ...]
    edits: tuple[CellEdit, ...]


class Failures:
    """Internal errors of jax_nbhelp, kept as text so they can be reported and tested: a
    diagnosis or a fix that crashed is skipped and remembered here, and never hides the
    user's traceback or another diagnosis."""

    KEEP = 20

    def __init__(self) -> None:
        self.items: list[str] = []
        self.count = 0

    def record(self, where: str) -> None:
        self.count += 1
        self.items.append(f"{where}: {traceback.format_exc(limit=-3)}")
        del self.items[:-self.KEEP]


class CardRegistry:
    """Card id -> the diagnosis its card shows, the newest ``KEEP``: the JupyterLab extension
    and the anywidget card hand an id back to apply a fix; an older id answers "stale"."""

    KEEP = 64

    def __init__(self) -> None:
        self._cards: dict[str, Diagnosis] = {}

    def add(self, card_id: str, diagnosis: Diagnosis) -> None:
        self._cards[card_id] = diagnosis
        while len(self._cards) > self.KEEP:
            del self._cards[next(iter(self._cards))]

    def get(self, card_id: object) -> Diagnosis | None:
        return self._cards.get(card_id) if isinstance(card_id, str) else None

    def __getitem__(self, card_id: str) -> Diagnosis:
        return self._cards[card_id]

    def __contains__(self, card_id: object) -> bool:
        return card_id in self._cards

    def __len__(self) -> int:
        return len(self._cards)


class RaisedLines(Mapping[int, tuple[int, str]]):
    """Execution count -> (the line that raised in that cell, the cell's source), for each
    cell that stopped with an error and was not fixed since: what raised there never
    completed (``fix/run_plan``); the source tells a record from a cell of an earlier
    session. The planner only reads it; the hook notes a line, a fix's run forgets one."""

    def __init__(self) -> None:
        self._lines: dict[int, tuple[int, str]] = {}

    def note(self, cell: int, line: int, source: str) -> None:
        self._lines[cell] = (line, source)

    def forget(self, cell: int | None) -> None:
        if cell is not None:
            self._lines.pop(cell, None)

    def __getitem__(self, cell: int) -> tuple[int, str]:
        return self._lines[cell]

    def __iter__(self) -> Iterator[int]:
        return iter(self._lines)

    def __len__(self) -> int:
        return len(self._lines)


class InterpretSpeed:
    """Per interpreter ("hlo", "tpu", "gpu"): how much longer than estimated the last
    interpreted fix ran on this machine (``jaxapi/interpret_cost.calibrate``), so the next
    estimate is corrected; None where no fix ran yet."""

    def __init__(self) -> None:
        self._factors: dict[str, float] = {}

    def factor(self, mode: str) -> float | None:
        return self._factors.get(mode)

    def learn(self, mode: str, factor: float) -> None:
        self._factors[mode] = factor

    def clear(self) -> None:
        self._factors.clear()


@dataclass
class Session:
    """One load of jax_nbhelp in one shell (or none: jax_nbhelp used as a library)."""

    shell: Any = None
    # this load: a bundle that names another is stale (another kernel, an earlier load)
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    cards: CardRegistry = field(default_factory=CardRegistry)
    raised: RaisedLines = field(default_factory=RaisedLines)
    speed: InterpretSpeed = field(default_factory=InterpretSpeed)
    failures: Failures = field(default_factory=Failures)
    # False in classroom mode: a card keeps the fixes back (read from the shell's
    # configuration at load, classroom.configured_show_fixes; `%jax_nbhelp hints`/`fixes`)
    show_fixes: bool = True
    # JAX's frames folded out of a traceback that gets a card (c.JaxNbhelp.fold_traceback,
    # read at load; shell/traceback_fold.py), and the whole last one (%jax_nbhelp traceback)
    fold_traceback: bool = True
    last_traceback: list[str] | None = None
    # the last kernel checkup (%%jax_nbhelp check; jax_nbhelp.last_checkup())
    last_checkup: Checkup | None = None
    # the newest diagnosis shown and fix result (jax_nbhelp.last(), %jax_nbhelp show)
    last: Diagnosis | None = None
    last_result: FixResult | None = None
    # filename given to code a fix executed -> the raw source it holds
    reruns: dict[str, RerunSource] = field(default_factory=dict)
    # set only while the error of a failed fix is diagnosed
    failed_fix: FailedFix | None = None

    def running_shell(self) -> Any:
        """The shell of this session, else the running IPython (jax_nbhelp used without
        ``%load_ext``), else None."""
        if self.shell is not None:
            return self.shell
        try:
            from IPython import get_ipython
        except ImportError:  # pragma: no cover - IPython is a dependency
            return None
        return get_ipython()


_current = Session()


def current() -> Session:
    """The session of the loaded extension (a session of no shell before any load)."""
    return _current


def start(shell: Any) -> Session:
    """A new session for ``shell``, the current one from now on (``%load_ext``)."""
    global _current
    _current = Session(shell=shell)
    return _current


def end(session: Session) -> None:
    """End ``session`` (``%unload_ext``): nothing of it stays, and a session of no shell is
    current again."""
    global _current
    if _current is session:
        _current = Session()


def typed_source(shell: Any, number: int | None) -> str | None:
    """What the user typed as cell ``In [number]`` (IPython's raw input history), if known."""
    history = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
    if isinstance(history, list) and number is not None and 0 <= number < len(history):
        raw = history[number]
        return raw if isinstance(raw, str) else None
    return None


def running_cell(shell: Any) -> int:
    """The number of the cell running now (``In [n]``): the last one in the history, which
    IPython stores before it runs it (IPython 8 has counted it by then, 7 has not); 0 where
    no history is kept."""
    history = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
    if isinstance(history, list) and history:
        return len(history) - 1
    return max(int(getattr(shell, "execution_count", 1) or 1) - 1, 0)


def current_shell() -> Any:
    """The shell jax_nbhelp is loaded in, else the running IPython, else None."""
    return _current.running_shell()


def edits_to_copy(fix: Fix) -> list[CellEdit]:
    """The cells of ``fix.edits`` whose fixed source differs from what the user's cell holds
    (in a chain, a fix carries an earlier fix's rewrite, which the cell does not hold yet)."""
    shell = current_shell()
    found = []
    for edit in fix.edits:
        typed = typed_source(shell, edit.cell)
        if edit.source != (edit.original if typed is None else typed):
            found.append(edit)
    return found
