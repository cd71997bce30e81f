"""Shared ways to build a Fix: re-run the failing cell, or rewrite a line and re-run.

Diagnoses decide WHAT to change; these helpers decide which statements must run again (see
``run_plan``) and turn "cannot" into a reason the user reads, so every diagnosis explains
refusals the same way.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from jax_nbhelp.core import protocol
from jax_nbhelp.core.model import CellEdit, CellRun, Fix, Location, RuntimeWrapper
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.fix.rerun import apply_fix
from jax_nbhelp.fix.run_plan import FailingCell, plan_runs
from jax_nbhelp.fix.run_plan import label as cell_name


def new_fix(**fields: Any) -> Fix:
    """A Fix that ``apply()`` runs in the current shell (every fix is built through here)."""
    return Fix(runner=apply_fix, **fields)


def refused_fix(label: str, summary: str, safety: str, reason: str, *, safe: bool = True,
                diff: str = "") -> Fix:
    """A fix that cannot apply here, shown with ``reason`` so the user learns why."""
    return new_fix(label=label, summary=summary, safety=safety, safe=safe, unavailable=reason,
                   diff=diff)


def cell_label(location: Location) -> str:
    return protocol.cell_label(location.cell) if location.cell is not None else "the cell"


NOT_A_CELL = (
    "the error did not come from a notebook cell jax_nbhelp can re-run (it re-runs "
    "cells of an IPython session, not scripts)"
)


def failing_cell(ctx: ErrorContext) -> FailingCell | str:
    """The failing cell and the line of the statement that raised, or why it cannot re-run."""
    failing = ctx.failing_cell()
    if failing is None or failing.cell is None:
        return NOT_A_CELL
    if failing.source is None:
        return f"the source of {cell_label(failing)} is no longer in the shell's history"
    restart = restart_last = None
    undone = ctx.session.failed_fix
    if undone is not None and undone.filename == failing.filename:
        restart = undone.run.first_line
        restart_last = None if undone.run.resumed else undone.run.last_line or None
    return FailingCell(failing.cell, failing.source, _raising_line(ctx, failing), restart,
                       restart_last)


def _raising_line(ctx: ErrorContext, failing: Location) -> int:
    """The cell line that raised. In a ``%%time`` cell the cell's own frame is the magic's
    line; the body's frame (``<timed exec>``, numbered from the line after it) says which."""
    from jax_nbhelp.fix.cell_statements import parse_cell

    parsed = parse_cell(failing.source or "")
    if parsed is not None and parsed.cell_magic == "time":
        for frame in ctx.top.frames:
            if frame.filename == "<timed exec>":
                return parsed.magic_line + frame.lineno
    return failing.lineno


@dataclass(frozen=True)
class Planned:
    runs: tuple[CellRun, ...]
    not_rerun: tuple[str, ...]
    edits: tuple[CellEdit, ...]


def plan(
    ctx: ErrorContext,
    *,
    edits: Mapping[int, tuple[str, str]] | None = None,
    touch: Mapping[int, Mapping[int, str]] | None = None,
    every_item_raises: bool = False,
) -> Planned | str:
    """The runs of a fix that rewrites ``edits`` and re-runs ``touch`` (see ``run_plan``),
    or why it cannot run. After a failed fix was undone, its runs are carried along.
    ``every_item_raises``: see ``rewrite_fix``."""
    failing = failing_cell(ctx)
    if isinstance(failing, str):
        return failing
    edits = dict(edits or {})
    namespace = getattr(ctx.session.running_shell(), "user_ns", None)
    undone = ctx.session.failed_fix if failing.restart_line is not None else None
    # A fix for an error that an earlier fix's run raised starts from the code as that fix
    # left it: its rewritten cells (it was undone, but it is part of the chain).
    sources = dict(ctx.cell_sources)
    if undone is not None:
        sources.update({edit.cell: edit.source for edit in undone.edits
                        if edit.cell is not None})
        failing = replace(failing, source=sources.get(failing.cell, failing.source))
    planned = plan_runs(failing, sources, edits=edits, touch=touch,
                        namespace=namespace if isinstance(namespace, dict) else None,
                        raised=ctx.session.raised, mentions=ctx.cells_mentioning,
                        every_item_raises=every_item_raises)
    runs = list(planned.runs)
    merged: dict[int | None, CellEdit] = {}
    if undone is not None:
        runs = _chained(undone.before, runs, undone.after)
        merged = {edit.cell: edit for edit in undone.edits}
    for number, (before, after) in sorted(edits.items()):
        earlier = merged.get(number)
        original = earlier.original if earlier else ctx.cell_sources.get(number, before)
        merged[number] = CellEdit(label=cell_name(number), cell=number, original=original,
                                  source=after)
    return Planned(tuple(runs), planned.not_rerun, tuple(merged.values()))


def _span(run: CellRun) -> tuple[int, int]:
    return run.first_line, run.last_line or 10**9


def _superseded(run: CellRun, runs: Sequence[CellRun]) -> bool:
    """Whether a newer run covers some of ``run``'s lines of the same cell."""
    first, last = _span(run)
    return any(other.cell == run.cell and _span(other)[0] <= last and first <= _span(other)[1]
               for other in runs)


def _covered(run: CellRun, runs: Sequence[CellRun]) -> bool:
    """Whether one of ``runs`` already runs all of ``run``'s lines, from the same cell."""
    first, last = _span(run)
    return any(other.cell == run.cell and _span(other)[0] <= first and last <= _span(other)[1]
               for other in runs)


def _chained(before: Sequence[CellRun], new: Sequence[CellRun],
             after: Sequence[CellRun]) -> list[CellRun]:
    """The runs of a fix after an earlier one in its chain: the earlier fix's runs (its
    rewritten cells included) stay, unless this fix rewrites their lines again; this fix's
    runs that repeat lines an earlier run already runs are left out."""
    changed = [run for run in new if run.rewritten]
    kept_before = [run for run in before if not _superseded(run, changed)]
    kept_after = [run for run in after if not _superseded(run, changed)]
    earlier = kept_before + kept_after
    own = [run for run in new if run.rewritten or run.resumed or not _covered(run, earlier)]
    return kept_before + own + [run for run in kept_after if not _superseded(run, own)]


def rerun_fix(
    ctx: ErrorContext,
    *,
    label: str,
    summary: str,
    safety: str,
    safe: bool,
    runtime: RuntimeWrapper,
    runtime_description: str,
    unavailable: str | None = None,
    touch: Mapping[int, Mapping[int, str]] | None = None,
) -> Fix:
    """Re-run, unchanged and inside ``runtime``, the statements ``touch`` names (cell ->
    {line: why}) with those that captured them, then the failing cell from the statement
    that raised."""
    planned = plan(ctx, touch=touch)
    runs: tuple[CellRun, ...] = ()
    not_rerun: tuple[str, ...] = ()
    edits: tuple[CellEdit, ...] = ()
    if isinstance(planned, str):
        unavailable = unavailable or planned
    else:
        runs, not_rerun, edits = planned.runs, planned.not_rerun, planned.edits
    return new_fix(
        label=label,
        summary=summary,
        safety=safety,
        safe=safe,
        kind="runtime",
        runs=runs,
        runtime=runtime,
        runtime_description=runtime_description,
        unavailable=unavailable,
        edits=edits,
        not_rerun=not_rerun,
    )


# a place of the user's code and how its source is rewritten
Rewrite = tuple[Location | None, Callable[[str], str]]


def rewrite_fix(
    ctx: ErrorContext,
    location: Location | None,
    transform: Callable[[str], str],
    *,
    label: str,
    summary: str,
    safety: str,
    safe: bool,
    also: Sequence[Rewrite] = (),
    changes: str | None = None,
    every_item_raises: bool = False,
) -> Fix:
    """Rewrite the source at ``location``, re-run its cell, then the failing cell; ``also``:
    more places and their transforms, rewritten after it (each cell a fix rewrites is
    rewritten once, by its transforms in turn). ``changes``: what a fix that is not safe
    changes (``Fix.changes``), said with its outcome. ``every_item_raises``: the entry
    established that the error is one every item of a loop's sequence raises at the line
    (a type all the items share), so a top-level ``for`` loop whose first statement raised
    raised in its first iteration, and runs again from its start as if once.

    A file is never edited: the diff is shown so the user can apply it, and the fix says why
    it cannot run. A bug while preparing the fix refuses this fix only.
    """
    def refused(reason: str, diff: str = "") -> Fix:
        return refused_fix(label, summary, safety, reason, safe=safe, diff=diff)

    try:
        rewritten = _rewrite(ctx, ((location, transform), *also), refused,
                             every_item_raises=every_item_raises)
    except Exception as exc:
        ctx.session.failures.record(f"fix {label!r}")
        return refused(f"jax_nbhelp could not prepare this fix ({type(exc).__name__})")
    if isinstance(rewritten, Fix):
        return rewritten
    planned, diff = rewritten
    return new_fix(label=label, summary=summary, safety=safety, safe=safe, runs=planned.runs,
                   diff=diff, edits=planned.edits, not_rerun=planned.not_rerun,
                   changes=changes)


def chain_sources(ctx: ErrorContext) -> dict[int, str]:
    """The cells an earlier fix of the chain rewrote, as it left them, when this error came
    from that fix's run (which was undone): a fix for it starts from that code. Empty when
    the error is not part of a chain."""
    undone = ctx.session.failed_fix
    failing = ctx.failing_cell()
    if undone is None or failing is None or undone.filename != failing.filename:
        return {}
    return {edit.cell: edit.source for edit in undone.edits if edit.cell is not None}


def _chain_source(ctx: ErrorContext, location: Location) -> str:
    """The source of the location's cell as the fix starts from it (``chain_sources``)."""
    assert location.source is not None
    found = chain_sources(ctx).get(location.cell) if location.cell is not None else None
    return found if found is not None else location.source


# a run of this many blank lines in a file's source is packed for a rewrite
_PACKED_RUN = 8
_QUOTES = '"' * 3  # a run is packed into a string of these quotes


def _in_packed_file(transform: Callable[[str], str], source: str) -> str:
    """``transform(source)`` for a user's file, whose source (``sources.file_source``) is
    the block that holds the line and the module's imports, every other line blank, so that
    the lines keep the file's numbers. A rewrite parses it with libcst, whose cost grows
    with every blank line: each run of blank lines is handed to it as one string statement
    spanning the same lines (numbers unchanged), and given back blank after. Where the
    packed source does not parse, or the rewrite touched a run, the source as it is."""
    lines = source.splitlines(keepends=True)
    packed: list[str] = []
    runs: list[tuple[str, str]] = []  # (the packed text, the blank lines it stands for)
    start = 0
    while start < len(lines):
        end = start
        while end < len(lines) and not lines[end].strip():
            end += 1
        following = lines[end] if end < len(lines) else ""
        if end - start >= _PACKED_RUN and following.strip():
            indent = following[:len(following) - len(following.lstrip())]
            text = f"{indent}{_QUOTES}" + "\n" * (end - start - 1) + f"{_QUOTES}\n"
            packed.append(text)
            runs.append((text, "".join(lines[start:end])))
        else:
            end = max(end, start + 1)
            packed.extend(lines[start:end])
        start = end
    if not runs:
        return transform(source)
    text = "".join(packed)
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return transform(source)
    result = transform(text)
    for filler, blank in runs:
        if result.count(filler) != 1:
            return transform(source)
        result = result.replace(filler, blank, 1)
    return result


def _rewrite(
    ctx: ErrorContext,
    rewrites: Sequence[Rewrite],
    refused: Callable[..., Fix],
    every_item_raises: bool = False,
) -> tuple[Planned, str] | Fix:
    """The runs and diff of rewriting each location with its transform (in order; two in
    one cell apply one after the other), or the refused fix saying why not."""
    from jax_nbhelp.rewrite import CannotRewrite, unified_diff

    rewritten: dict[str, tuple[Location, str]] = {}  # cell or file -> (its place, new source)
    for location, transform in rewrites:
        if location is None:
            return refused("jax_nbhelp found no line of your code in the traceback")
        if location.kind == "code":
            return refused(
                f"the line ran inside code compiled by a cell magic ({location.filename}), "
                "which jax_nbhelp cannot map back to a cell"
            )
        if location.source is None:
            return refused(f"the source of {location.label} is not available")
        name = cell_label(location) if location.kind == "cell" else location.filename
        first, base = rewritten.get(name, (location, _chain_source(ctx, location)))
        try:
            rewritten[name] = (first, transform(base) if location.kind != "file"
                               else _in_packed_file(transform, base))
        except CannotRewrite as exc:
            return refused(str(exc))
    # what the user typed against what it becomes: an earlier fix of the chain included
    # (in the notebook's order)
    diff = "".join(unified_diff(place.source or "", new_source, name)
                   for name, (place, new_source) in sorted(
                       rewritten.items(), key=lambda item: item[1][0].cell or 0))
    files = [place.filename for place, _ in rewritten.values() if place.kind == "file"]
    if files:
        return refused(
            f"the code is in {files[0]}, and jax_nbhelp never edits files: apply the "
            "diff there and re-import the module",
            diff,
        )
    # compared with what ran last (the typed cell: an earlier fix of the chain was undone),
    # so its rewritten lines run too
    planned = plan(ctx, edits={place.cell: (place.source or "", new_source)
                               for place, new_source in rewritten.values()
                               if place.cell is not None},
                   every_item_raises=every_item_raises)
    if isinstance(planned, str):
        return refused(planned, diff)
    return planned, diff
