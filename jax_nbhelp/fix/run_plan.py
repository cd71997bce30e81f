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
    edits = dict(edits or {})
    touch = dict(touch or {})
    failing_after = edits.get(failing.cell, (failing.source, failing.source))[1]
    failing_cell = _cell(failing.cell, failing.source, failing_after)
    resume = _resume_index(failing, failing_cell) if failing_cell is not None else None
    if failing_cell is None or resume is None or not failing_cell.parsed.statements:
        return Plan((_whole(failing.cell, failing_after,
                            "jax_nbhelp could not split this cell into statements, so all of "
                            "it runs"),))
    resume_index, resume_why = resume

    cells: dict[int, _Cell] = {failing.cell: failing_cell}
    for number, (before, after) in edits.items():
        if number != failing.cell:
            parsed = _cell(number, before, after)
            if parsed is not None:
                cells[number] = parsed
    for number in touch:
        if number not in cells:
            source = history.get(number)
            if source is not None and (parsed := _cell(number, source, source)) is not None:
                cells[number] = parsed
    selected: dict[int, dict[int, str]] = {n: dict(c.changed) for n, c in cells.items()}
    for number, lines in touch.items():
        cell = cells.get(number)
        if cell is None:
            continue
        for line, why in lines.items():
            stmt = cell.parsed.statement_at(line)
            if stmt is not None:
                selected[number].setdefault(stmt.index, why)
    starts = [n for n, chosen in selected.items() if chosen]
    not_rerun: list[str] = []
    if starts:
        _dependents(min(starts), failing, cells, history, selected, resume_index, not_rerun,
                    raised or {}, mentions)

    # Statements of the failing cell chosen right before the resume point run with it, as
    # one piece: "In [3] from line 1 (rewritten: def scaled)".
    own = selected.get(failing.cell, {})
    start = resume_index
    while start - 1 in own:
        start -= 1
    runs: list[CellRun] = []
    for number in sorted(cells, key=lambda n: (n == failing.cell, n)):
        chosen = selected.get(number, {})
        if number == failing.cell:
            chosen = {i: why for i, why in chosen.items() if i < start}
        runs += _selected_runs(cells[number], chosen)
    rest = list(failing_cell.parsed.statements[start:_end_index(failing, failing_cell)])
    changed_rest = [s for s in rest if s.index in failing_cell.changed]
    whys = [resume_why] if resume_why else []
    whys += list(dict.fromkeys(own[s.index] for s in rest if s.index < resume_index))
    whys += list(dict.fromkeys(failing_cell.changed[s.index] for s in changed_rest))
    loop, loop_why = None, ""
    if rest and namespace is not None and start == resume_index:
        loop, loop_why = _loop(failing, failing_cell, rest[0], namespace)
        if loop_why:
            whys = [loop_why] + [why for why in whys if why != resume_why]
    repeats = ""
    if loop is None and rest and start == resume_index:
        repeats = _repeats(failing, rest[0])
    runs.append(_block(failing_cell, rest, "; ".join(dict.fromkeys(whys)),
                       resumed=failing.restart_last is None, rewritten=bool(changed_rest),
                       loop=loop, repeats=repeats))
    return Plan(tuple(runs), tuple(not_rerun))


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
          namespace: Mapping[str, Any]) -> tuple[LoopResume | None, str]:
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
    found = loop_resume.plan(escaped, failing.lineno, first.first, namespace)
    if isinstance(found, str):
        return None, (f"the for loop in which line {failing.lineno} raised runs from its "
                      f"start, so what ran of it runs again ({found})")
    return found, loop_resume.describe(found, failing.lineno)


def _dependents(
    start: int,
    failing: FailingCell,
    cells: dict[int, _Cell],
    history: Mapping[int, str],
    selected: dict[int, dict[int, str]],
    resume_index: int,
    not_rerun: list[str],
    raised: Mapping[int, tuple[int, str]],
    mentions: Callable[[str], Sequence[int] | None] | None,
) -> None:
    """Add the statements that bind names from selected ones (in execution order)."""
    names: set[str] = set()
    # The cells between the first changed one and the failing one: most never mention a
    # changed name (a notebook may hold hundreds), so only those whose text mentions one
    # are visited, in execution order, found by a substring test per name (or the
    # shell's index of them, which a later error extends by the new cells only).
    end = failing.cell
    between: list[tuple[int, str]] | None = None

    def cells_with(name: str, after: int) -> list[int]:
        nonlocal between
        found = mentions(name) if mentions is not None else None
        if found is not None:
            return [n for n in found if after < n < end and n in history]
        if between is None:
            between = sorted((n, source) for n, source in history.items()
                             if start <= n < end)
        return [n for n, source in between if name in source and n > after]

    retried = _retried(failing, history, raised, start)
    pending = [n for n in cells if n <= failing.cell]
    heapq.heapify(pending)
    looked_up: set[str] = set()
    visited = -1
    while pending:
        number = heapq.heappop(pending)
        if number <= visited:
            continue
        visited = number
        cell = cells.get(number)
        ended: int | None = None  # where what ran of it stopped, when it was tried again
        if cell is None:
            parsed = _cell(number, history[number], history[number])
            if parsed is None:
                continue
            cell = parsed
            stopped = cell.parsed.statement_at(retried[number]) if number in retried else None
            ended = stopped.index if stopped is not None else None
        chosen = selected.setdefault(number, {})
        for stmt in cell.parsed.statements:
            if number == failing.cell and stmt.index >= resume_index:
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
                cells.setdefault(number, cell)
            elif used:
                not_rerun.append(f"{label(number)}, line {stmt.first} ({stmt.summary}) uses "
                                 + ", ".join(sorted(used)))
            elif stmt.binds & names:
                names -= stmt.binds  # rebound by code the fix does not touch
        # A cell that mentions none of the names has nothing to do: it reads none and
        # rebinds none. Visiting one that mentions a name since rebound does nothing either.
        for name in names - looked_up:
            looked_up.add(name)
            for later in cells_with(name, number):
                heapq.heappush(pending, later)


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
