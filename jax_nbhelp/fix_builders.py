"""Shared ways to build a Fix: re-run the failing cell, or rewrite a line and re-run.

Diagnoses decide WHAT to change; these helpers decide which cells must run again and turn
"cannot" into a reason the user reads, so every diagnosis explains refusals the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from jax_nbhelp.context import ErrorContext
from jax_nbhelp.model import CellRun, Fix, Location, RuntimeWrapper


def cell_label(location: Location) -> str:
    return f"In [{location.cell}]" if location.cell is not None else "the cell"


NOT_A_CELL = (
    "the error did not come from a notebook cell jax_nbhelp can re-run (it re-runs "
    "cells of an IPython session, not scripts)"
)


def failing_run(ctx: ErrorContext) -> CellRun | str:
    """The failing cell as a run, or why it cannot be re-run."""
    failing = ctx.failing_cell()
    if failing is None:
        return NOT_A_CELL
    if failing.source is None:
        return f"the source of {cell_label(failing)} is no longer in the shell's history"
    return CellRun(label=cell_label(failing), source=failing.source, cell=failing.cell)


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
    before: Sequence[CellRun] = (),
) -> Fix:
    """Re-run the cells ``before`` and then the failing cell, unchanged, inside ``runtime``.

    A cell of ``before`` that is the failing cell itself runs once, last.
    """
    run = failing_run(ctx)
    runs: tuple[CellRun, ...] = ()
    if isinstance(run, str):
        unavailable = unavailable or run
    else:
        runs = (*(cell for cell in before if cell.cell != run.cell), run)
    return Fix(
        label=label,
        summary=summary,
        safety=safety,
        safe=safe,
        kind="runtime",
        runs=runs,
        runtime=runtime,
        runtime_description=runtime_description,
        unavailable=unavailable,
    )


def rewrite_fix(
    ctx: ErrorContext,
    location: Location | None,
    transform: Callable[[str], str],
    *,
    label: str,
    summary: str,
    safety: str,
    safe: bool,
) -> Fix:
    """Rewrite the source at ``location``, re-run its cell, then the failing cell.

    A file is never edited: the diff is shown so the user can apply it, and the fix says why
    it cannot run. A bug while preparing the fix refuses this fix only.
    """
    try:
        return _rewrite_fix(ctx, location, transform, label=label, summary=summary,
                            safety=safety, safe=safe)
    except Exception as exc:
        from jax_nbhelp.engine import FAILURES

        FAILURES.record(f"fix {label!r}")
        return Fix(label=label, summary=summary, safety=safety, safe=safe,
                   unavailable=f"jax_nbhelp could not prepare this fix ({type(exc).__name__})")


def _rewrite_fix(
    ctx: ErrorContext,
    location: Location | None,
    transform: Callable[[str], str],
    *,
    label: str,
    summary: str,
    safety: str,
    safe: bool,
) -> Fix:
    from jax_nbhelp.rewrite import CannotRewrite, unified_diff

    def refused(reason: str, diff: str = "") -> Fix:
        return Fix(label=label, summary=summary, safety=safety, safe=safe, unavailable=reason,
                   diff=diff)

    if location is None:
        return refused("jax_nbhelp found no line of your code in the traceback")
    if location.kind == "code":
        return refused(
            f"the line ran inside code compiled by a cell magic ({location.filename}), which "
            "jax_nbhelp cannot map back to a cell"
        )
    if location.source is None:
        return refused(f"the source of {location.label} is not available")
    try:
        new_source = transform(location.source)
    except CannotRewrite as exc:
        return refused(str(exc))
    name = cell_label(location) if location.kind == "cell" else location.filename
    diff = unified_diff(location.source, new_source, name)
    if location.kind == "file":
        return refused(
            f"the code is in {location.filename}, and jax_nbhelp never edits files: apply the "
            "diff there and re-import the module",
            diff,
        )
    edited = CellRun(
        label=cell_label(location), source=new_source, cell=location.cell,
        original=location.source,
    )
    failing = failing_run(ctx)
    if isinstance(failing, str):
        return refused(failing, diff)
    same_cell = failing.cell == location.cell and failing.source == location.source
    runs = (edited,) if same_cell else (edited, failing)
    return Fix(label=label, summary=summary, safety=safety, safe=safe, runs=runs, diff=diff)
