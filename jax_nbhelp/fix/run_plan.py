"""What a fix runs: the statements it changed, those that captured them, and the rest of the
failing cell from the statement that raised. Never a statement that already ran and does
not need to run again.

- Resume, don't repeat: the failing cell runs again from the top-level statement that
  raised (a ``for``/``with``/``if``/``try`` from its start). What ran before it stays done.
- Re-define, don't re-run: of a rewritten cell, only the changed statements run, then the
  later statements (in that cell, the cells after it and the failing cell before the
  resume point) that bind names from them, like ``f = jax.jit(scaled)`` after ``def
  scaled``. A statement that reads a changed name but would repeat an effect when run
  again (a loop, ``x += 1``, ``key = split(key)``) is not re-run; the preview names it.
- A try that was tried again is not run twice: when an earlier run of a cell stopped at an
  error and the same source ran again later (the user pressed Run once more), what raised
  in the earlier run never completed and the later run stands for it, so the fix runs only
  what of the earlier run had completed, as any other cell.
"""

from __future__ import annotations

import difflib
import heapq
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jax_nbhelp.core.model import CellRun, LoopResume
from jax_nbhelp.core.protocol import cell_label
from jax_nbhelp.fix import loop_resume
from jax_nbhelp.fix.cell_statements import (
    ParsedCell,
    Statement,
    parse_cell,
    ran_before,
    rebinds_only,
)


@dataclass(frozen=True)
class FailingCell:
    """The cell that raised, as it ran, and the line of the statement that raised."""

    cell: int
    source: str
    lineno: int
    # where a re-run of it started, when the error came from a fix that jax_nbhelp rolled
    # back: its statements up to the error must run again
    restart_line: int | None = None
    restart_last: int | None = None  # and where it ended, when it was not the rest of a cell


@dataclass(frozen=True)
class Plan:
    runs: tuple[CellRun, ...]
    not_rerun: tuple[str, ...] = ()


@dataclass
class _Cell:
    number: int
    before: str
    after: str
    parsed: ParsedCell  # of ``after``
    # before-index -> after-index, for statements that survived the rewrite
    mapping: dict[int, int] = field(default_factory=dict)
    changed: dict[int, str] = field(default_factory=dict)  # after-index -> why


label = cell_label  # what the plan's sentences call a cell


def _texts(parsed: ParsedCell) -> list[str]:
    return [parsed.text(s.first, s.last).rstrip() for s in parsed.statements]


def _align(before: ParsedCell, after: ParsedCell) -> tuple[dict[int, int], dict[int, str]]:
    """Which statements kept their text (before-index -> after-index), and which changed."""
    matcher = difflib.SequenceMatcher(None, _texts(before), _texts(after), autojunk=False)
    mapping: dict[int, int] = {}
    changed: dict[int, str] = {}
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            mapping.update({i1 + k: j1 + k for k in range(i2 - i1)})
            continue
        for j in range(j1, j2):
            changed[j] = f"rewritten: {after.statements[j].summary}"
        if tag == "replace":
            # A statement rewritten in place keeps its position for the resume point.
            mapping.update({i1 + k: min(j1 + k, j2 - 1) for k in range(i2 - i1)})
    return mapping, changed


def _cell(number: int, before: str, after: str) -> _Cell | None:
    parsed_after = parse_cell(after)
    if parsed_after is None:
        return None
    cell = _Cell(number, before, after, parsed_after)
    if before == after:
        cell.mapping = {s.index: s.index for s in parsed_after.statements}
        return cell
    parsed_before = parse_cell(before)
    if parsed_before is None:
        cell.changed = {s.index: f"rewritten: {s.summary}" for s in parsed_after.statements}
        return cell
    cell.mapping, cell.changed = _align(parsed_before, parsed_after)
    return cell


def _block(cell: _Cell, statements: Sequence[Statement], why: str, *, resumed: bool,
           rewritten: bool, loop: LoopResume | None = None, repeats: str = "") -> CellRun:
    parsed = cell.parsed
    first, last = statements[0].first, statements[-1].last
    header = parsed.magic_header if parsed.cell_magic and parsed.sliceable else ""
    return CellRun(
        label=label(cell.number),
        source=header + parsed.text(first, last),
        cell=cell.number,
        first_line=first,
        last_line=last,
        why=why,
        rewritten=rewritten,
        resumed=resumed,
        cell_source=cell.after,
        header=header,
        header_line=parsed.magic_line if header else 0,
        loop=loop,
        repeats=repeats,
    )


def _whole(number: int, source: str, why: str) -> CellRun:
    return CellRun(label=label(number), source=source, cell=number, why=why, resumed=True,
                   cell_source=source)


def _selected_runs(cell: _Cell, selected: dict[int, str]) -> list[CellRun]:
    runs: list[CellRun] = []
    group: list[Statement] = []

    def flush() -> None:
        if group:
            whys = list(dict.fromkeys(selected[s.index] for s in group))
            rewritten = any(s.index in cell.changed for s in group)
            runs.append(_block(cell, list(group), "; ".join(whys), resumed=False,
                               rewritten=rewritten))
            group.clear()

    for stmt in cell.parsed.statements:
        if stmt.index in selected:
            if group and group[-1].index != stmt.index - 1:
                flush()
            group.append(stmt)
    flush()
    return runs


def _resume_index(failing: FailingCell, cell: _Cell) -> tuple[int, str] | None:
    """The after-index the failing cell resumes from, and what the preview says about it."""
    before = parse_cell(failing.source)
    if before is None:
        return None
    line = failing.restart_line or failing.lineno
    stmt = before.statement_at(line)
    if stmt is None:
        return None
    index = cell.mapping.get(stmt.index)
    if index is None:  # the statement itself was rewritten beyond recognition
        index = min((j for j in cell.changed), default=stmt.index)
    why = ""
    if failing.restart_line is not None:
        why = "the fix that raised was undone, so it runs again from where that re-run began"
    elif stmt.compound and failing.lineno != stmt.first:
        why = f"the {stmt.summary} in which line {failing.lineno} raised runs from its start"
    return index, why


def _end_index(failing: FailingCell, cell: _Cell) -> int:
    """Where the failing cell's run ends (after-index, exclusive): its end, or the end of
    the undone run it repeats."""
    count = len(cell.parsed.statements)
    before = parse_cell(failing.source)
    if failing.restart_last is None or before is None:
        return count
    beyond = [s.index for s in before.statements if s.first > failing.restart_last]
    if not beyond:
        return count
    return cell.mapping.get(beyond[0], count)


def plan_runs(
    failing: FailingCell,
    history: Mapping[int, str],
    *,
    edits: Mapping[int, tuple[str, str]] | None = None,
    touch: Mapping[int, Mapping[int, str]] | None = None,
    namespace: Mapping[str, Any] | None = None,
    raised: Mapping[int, tuple[int, str]] | None = None,
    mentions: Callable[[str], Sequence[int] | None] | None = None,
    every_item_raises: bool = False,
) -> Plan:
    """The runs of a fix.

    ``namespace``: the user's names as the error left them; with it, a top-level ``for``
    loop that raised is resumed in the iteration it raised in (``loop_resume``).

    ``edits``: cell -> (source before, source after) for the cells a rewrite changes.
    ``touch``: cell -> {line: why} for statements to run again unchanged (a kernel built
    before an interpret switch). ``history``: the other cells' sources, by execution count.
    ``raised``: execution count -> (the line that raised in it, its source), for runs an
    error stopped. ``mentions(name)``: the cells of ``history`` whose source holds
    ``name``, from an index kept between errors (None: search ``history``).
    """
    edits = edits or {}
    failing_after = edits.get(failing.cell, (failing.source, failing.source))[1]
    failing_cell = _cell(failing.cell, failing.source, failing_after)
    resume = _resume_index(failing, failing_cell) if failing_cell is not None else None
    if failing_cell is None or resume is None or not failing_cell.parsed.statements:
        return Plan((_whole(failing.cell, failing_after,
                            "jax_nbhelp could not split this cell into statements, so all of "
                            "it runs"),))
    planner = _Planner(failing, failing_cell, resume, history, raised or {}, mentions)
    planner.touched(edits, touch or {})
    planner.dependents()
    return Plan((*planner.earlier_runs(), planner.failing_run(namespace, every_item_raises)),
                tuple(planner.not_rerun))


class _Planner:
    """The steps of a plan, each a method: the statements a fix touches (``touched``), the
    later ones that bind names from them (``dependents``), the runs before the failing cell
    (``earlier_runs``) and the failing cell's own run (``failing_run``). It changes only its
    own state; what it was given stays as it was."""

    def __init__(self, failing: FailingCell, failing_cell: _Cell, resume: tuple[int, str],
                 history: Mapping[int, str], raised: Mapping[int, tuple[int, str]],
                 mentions: Callable[[str], Sequence[int] | None] | None) -> None:
        self.failing = failing
        self.failing_cell = failing_cell
        self.resume_index, self.resume_why = resume
        self.history = history
        self.raised = raised
        self.mentions = mentions
        self.cells: dict[int, _Cell] = {failing.cell: failing_cell}
        # cell -> {statement index: why it runs}
        self.selected: dict[int, dict[int, str]] = {}
        self.not_rerun: list[str] = []
        self._between: list[tuple[int, str]] | None = None  # see _cells_with

    def touched(self, edits: Mapping[int, tuple[str, str]],
                touch: Mapping[int, Mapping[int, str]]) -> None:
        """The statements a rewrite changed, and those to run again unchanged."""
        for number, (before, after) in edits.items():
            if number != self.failing.cell:
                parsed = _cell(number, before, after)
                if parsed is not None:
                    self.cells[number] = parsed
        for number in touch:
            if number not in self.cells:
                source = self.history.get(number)
                if source is not None and (parsed := _cell(number, source, source)) is not None:
                    self.cells[number] = parsed
        self.selected = {n: dict(c.changed) for n, c in self.cells.items()}
        for number, lines in touch.items():
            cell = self.cells.get(number)
            if cell is None:
                continue
            for line, why in lines.items():
                stmt = cell.parsed.statement_at(line)
                if stmt is not None:
                    self.selected[number].setdefault(stmt.index, why)

    def _start(self) -> int:
        """Where the failing cell's run starts: the resume point, or before it when the
        statements right before it run too, as one piece ("In [3] from line 1 (rewritten:
        def scaled)")."""
        own = self.selected.get(self.failing.cell, {})
        start = self.resume_index
        while start - 1 in own:
            start -= 1
        return start

    def earlier_runs(self) -> list[CellRun]:
        """The chosen statements of each cell, in execution order, the failing cell's
        before its start."""
        start = self._start()
        runs: list[CellRun] = []
        for number in sorted(self.cells, key=lambda n: (n == self.failing.cell, n)):
            chosen = self.selected.get(number, {})
            if number == self.failing.cell:
                chosen = {i: why for i, why in chosen.items() if i < start}
            runs += _selected_runs(self.cells[number], chosen)
        return runs

    def failing_run(self, namespace: Mapping[str, Any] | None,
                    every_item_raises: bool = False) -> CellRun:
        """The failing cell from its start to its end (or the end of the undone run)."""
        failing, cell = self.failing, self.failing_cell
        own = self.selected.get(failing.cell, {})
        start = self._start()
        rest = list(cell.parsed.statements[start:_end_index(failing, cell)])
        changed_rest = [s for s in rest if s.index in cell.changed]
        whys = [self.resume_why] if self.resume_why else []
        whys += list(dict.fromkeys(own[s.index] for s in rest if s.index < self.resume_index))
        whys += list(dict.fromkeys(cell.changed[s.index] for s in changed_rest))
        loop, loop_why = None, ""
        if rest and namespace is not None and start == self.resume_index:
            loop, loop_why = _loop(failing, cell, rest[0], namespace, every_item_raises)
            if loop_why:
                whys = [loop_why] + [why for why in whys if why != self.resume_why]
        repeats = ""
        if loop is None and rest and start == self.resume_index:
            repeats = _repeats(failing, rest[0])
        return _block(cell, rest, "; ".join(dict.fromkeys(whys)),
                      resumed=failing.restart_last is None, rewritten=bool(changed_rest),
                      loop=loop, repeats=repeats)

    def dependents(self) -> None:
        """Add the statements that bind names from selected ones (in execution order)."""
        starts = [n for n, chosen in self.selected.items() if chosen]
        if not starts:
            return
        start = min(starts)
        names: set[str] = set()
        retried = _retried(self.failing, self.history, self.raised, start)
        pending = [n for n in self.cells if n <= self.failing.cell]
        heapq.heapify(pending)
        looked_up: set[str] = set()
        visited = -1
        while pending:
            number = heapq.heappop(pending)
            if number <= visited:
                continue
            visited = number
            cell = self._visited_cell(number, retried)
            if cell is None:
                continue
            names = self._bindings(number, *cell, names)
            # A cell that mentions none of the names has nothing to do: it reads none and
            # rebinds none. Visiting one that mentions a name since rebound does nothing
            # either.
            for name in names - looked_up:
                looked_up.add(name)
                for later in self._cells_with(name, number, start):
                    heapq.heappush(pending, later)

    def _visited_cell(self, number: int, retried: Mapping[int, int]
                      ) -> tuple[_Cell, int | None] | None:
        """Cell ``number`` as the plan sees it, and where what ran of it stopped, when it was
        tried again (None: it all completed)."""
        cell = self.cells.get(number)
        if cell is not None:
            return cell, None
        parsed = _cell(number, self.history[number], self.history[number])
        if parsed is None:
            return None
        stopped = parsed.parsed.statement_at(retried[number]) if number in retried else None
        return parsed, (stopped.index if stopped is not None else None)

    def _bindings(self, number: int, cell: _Cell, ended: int | None,
                  names: set[str]) -> set[str]:
        """Choose the statements of ``cell`` that bind names from ``names``; the names
        bound by what the plan runs, after this cell."""
        names = set(names)
        chosen = self.selected.setdefault(number, {})
        for stmt in cell.parsed.statements:
            if number == self.failing.cell and stmt.index >= self.resume_index:
                break
            if ended is not None and stmt.index >= ended:
                break  # it raised there and was tried again: nothing from here completed
            if stmt.index in chosen:
                names |= stmt.binds
                continue
            used = stmt.reads & names
            if used and stmt.rebinds_only:
                chosen[stmt.index] = "uses " + ", ".join(sorted(used))
                names |= stmt.binds
                self.cells.setdefault(number, cell)
            elif used:
                self.not_rerun.append(f"{label(number)}, line {stmt.first} ({stmt.summary}) "
                                      "uses " + ", ".join(sorted(used)))
            elif stmt.binds & names:
                names -= stmt.binds  # rebound by code the fix does not touch
        return names

    def _cells_with(self, name: str, after: int, start: int) -> list[int]:
        """The cells between the first changed one and the failing one whose text mentions
        ``name``, after ``after``: most never mention a changed name (a notebook may hold
        hundreds), so only those are visited, found by the shell's index of them (which a
        later error extends by the new cells only), or by a substring test."""
        end = self.failing.cell
        found = self.mentions(name) if self.mentions is not None else None
        if found is not None:
            return [n for n in found if after < n < end and n in self.history]
        if self._between is None:
            self._between = sorted((n, source) for n, source in self.history.items()
                                   if start <= n < end)
        return [n for n, source in self._between if name in source and n > after]


def _repeats(failing: FailingCell, first: Statement) -> str:
    """What of a compound statement that raised inside ran before the error and runs again
    from its start: a loop's earlier iterations, and the statements before the line that
    raised (a block's header alone re-enters it, which a fix accepts)."""
    if (failing.restart_line is not None or not first.compound
            or not first.first < failing.lineno <= first.last):
        return ""
    where = label(failing.cell)
    if first.summary in ("for loop", "while loop"):
        return (f"{where}, the {first.summary} from line {first.first}, from its start (the "
                f"iterations before the one that raised, and lines {first.first}-"
                f"{failing.lineno - 1} of that one; over an iterator, what it had already "
                "drawn is skipped instead)")
    ran = ran_before(failing.source, first.first, failing.lineno)
    if ran is not None and all(rebinds_only(stmt) for stmt in ran):
        # Its header, and assignments that only rebind names: what a fix accepts of any
        # statement it re-runs (see cell_statements).
        return ""
    return f"{where}, lines {first.first}-{failing.lineno - 1} (the {first.summary})"


def _loop(failing: FailingCell, cell: _Cell, first: Statement,
          namespace: Mapping[str, Any], every_item_raises: bool = False
          ) -> tuple[LoopResume | None, str]:
    """The resumed loop the failing cell's run starts with, and what the preview says of it
    ("" to keep what it said); (None, "") when the run does not start inside a for loop."""
    before = parse_cell(failing.source)
    if (before is None or failing.restart_line is not None or cell.parsed.cell_magic
            or first.summary != "for loop"):
        return None, ""
    raised = before.statement_at(failing.lineno)
    if raised is None or raised.first == failing.lineno or (raised.first, raised.last) != (
            first.first, first.last):
        return None, ""  # the loop's own line raised, or a rewrite moved its lines
    from jax_nbhelp.rewrite.magics import escape_magics

    try:
        escaped, _ = escape_magics(cell.after)
    except Exception:
        return None, ""
    found = loop_resume.plan(escaped, failing.lineno, first.first, namespace,
                             every_item_raises=every_item_raises)
    if isinstance(found, str):
        return None, (f"the for loop in which line {failing.lineno} raised runs from its "
                      f"start, so what ran of it runs again ({found})")
    return found, loop_resume.describe(found, failing.lineno)


def _retried(failing: FailingCell, history: Mapping[int, str],
             raised: Mapping[int, tuple[int, str]], start: int) -> dict[int, int]:
    """The runs from ``start`` on that an error stopped and that ran again unchanged later
    (up to the failing cell): execution count -> the line that raised in it."""
    found: dict[int, int] = {}
    for number, (line, ran) in raised.items():  # the few runs that stopped, not all
        if history.get(number) != ran or not start <= number < failing.cell:
            continue
        if ran == failing.source or any(history.get(later) == ran
                                        for later in range(number + 1, failing.cell)):
            found[number] = line
    return found
