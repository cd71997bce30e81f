"""Per-process memory of jax_nbhelp: the shell it is loaded in, the last diagnosis and result."""

from __future__ import annotations

import traceback
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jax_nbhelp.core.model import CellEdit, CellRun, Diagnosis, Fix, FixResult


@dataclass
class RerunSource:
    """Source that a fix executed, so errors raised from it are located in it."""

    cell: int | None
    source: str


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


@dataclass
class Failures:
    """Internal errors of jax_nbhelp, kept as text so they can be reported and tested: a
    diagnosis or a fix that crashed is skipped and remembered here, and never hides the
    user's traceback or another diagnosis."""

    items: list[str] = field(default_factory=list)
    count: int = 0

    def record(self, where: str) -> None:
        self.count += 1
        self.items.append(f"{where}: {traceback.format_exc(limit=-3)}")
        del self.items[:-20]


@dataclass
class State:
    shell: Any = None
    last: Diagnosis | None = None
    last_result: FixResult | None = None
    # filename given to code a fix executed -> the raw source it holds
    reruns: dict[str, RerunSource] = field(default_factory=dict)
    # execution count -> (the line that raised in it, its source), for each cell that
    # stopped with an error and was not fixed since: what raised there never completed
    # (run_plan); the source tells a record from a cell of an earlier session
    raised: dict[int, tuple[int, str]] = field(default_factory=dict)
    # set only while the error of a failed fix is diagnosed
    failed_fix: FailedFix | None = None
    # card id -> the diagnosis it shows, for the JupyterLab extension (frontend.py)
    cards: dict[str, Diagnosis] = field(default_factory=dict)
    # jax_nbhelp's configurable settings (classroom.JaxNbhelp), read from the shell at load
    settings: Any = None
    # this kernel process: a bundle from another session is stale
    session: str = field(default_factory=lambda: uuid.uuid4().hex)
    # per interpreter ("hlo", "tpu", "gpu"): how much longer than estimated the last
    # interpreted fix ran on this machine (interpret_cost.calibrate), to correct the next one
    interpret_speed: dict[str, float] = field(default_factory=dict)
    # jax_nbhelp's own errors (Failures.record), newest last
    failures: Failures = field(default_factory=Failures)


STATE = State()


def typed_source(shell: Any, number: int | None) -> str | None:
    """What the user typed as cell ``In [number]`` (IPython's raw input history), if known."""
    history = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
    if isinstance(history, list) and number is not None and 0 <= number < len(history):
        raw = history[number]
        return raw if isinstance(raw, str) else None
    return None


def current_shell() -> Any:
    """The shell jax_nbhelp is loaded in, else the running IPython, else None."""
    if STATE.shell is not None:
        return STATE.shell
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is a dependency
        return None
    return get_ipython()


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
