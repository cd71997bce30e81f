"""The data jax_nbhelp hands to users, scripts and frontends.

Everything here is plain data: strings, numbers and source text. A diagnosis never keeps
frames, tracebacks or the exception itself, because those keep the user's arrays (and
accelerator memory) alive for as long as the diagnosis is remembered.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Literal

LocationKind = Literal["cell", "file", "code"]


@dataclass(frozen=True)
class Location:
    """A line of user code: a notebook cell (by execution count) or a file."""

    kind: LocationKind
    filename: str
    lineno: int
    line: str
    function: str = ""
    cell: int | None = None
    source: str | None = None
    rewritten: bool = False

    @property
    def label(self) -> str:
        """Where this is, as a user would say it: ``In [2], line 5`` or ``mod.py, line 5``."""
        if self.kind == "cell" and self.cell is not None:
            where = f"In [{self.cell}]"
            if self.rewritten:
                where += " (as re-run by jax_nbhelp)"
        else:
            where = self.filename
        return f"{where}, line {self.lineno}"

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["label"] = self.label
        return data


@dataclass(frozen=True)
class CellRun:
    """One piece of source a fix executes, in order, exactly as its preview shows it."""

    label: str
    source: str
    cell: int | None = None
    original: str | None = None

    @property
    def changed(self) -> bool:
        return self.original is not None and self.original != self.source


@dataclass
class FixResult:
    """What happened when a fix ran."""

    ok: bool
    fix_label: str
    error: str | None = None
    diagnosis: Diagnosis | None = None
    source: str | None = None
    seconds: float = 0.0
    value: Any = None
    traceback: str | None = None

    def __str__(self) -> str:
        if self.ok:
            return f"Fixed: {self.fix_label!r} ran without error in {self.seconds:.2f} s."
        lines = [f"Not fixed: {self.fix_label!r} failed.", f"  {self.error}"]
        if self.diagnosis is not None:
            lines.append(
                f"  jax_nbhelp knows this error: {self.diagnosis.title} "
                f"[{self.diagnosis.code}]; see `%jax_nbhelp`."
            )
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "fix": self.fix_label,
            "error": self.error,
            "seconds": round(self.seconds, 3),
            "source": self.source,
            "diagnosis": self.diagnosis.to_json() if self.diagnosis else None,
        }


RuntimeWrapper = Callable[[], AbstractContextManager[object]]


@dataclass
class Fix:
    """One way out of an error. ``apply()`` runs it and reports what happened.

    A fix is either a rewrite (``runs`` hold changed source) or a runtime fix (``runtime``
    wraps the re-run, the source stays as the user wrote it). ``unavailable`` says why a fix
    cannot apply here; such a fix is still shown, so the user learns why.
    """

    label: str
    summary: str
    safety: str
    safe: bool
    runs: tuple[CellRun, ...] = ()
    runtime: RuntimeWrapper | None = None
    runtime_description: str = ""
    unavailable: str | None = None
    kind: Literal["rewrite", "runtime"] = "rewrite"
    diff: str = ""

    def preview(self) -> str:
        """The unified diff of the source it will run, or a description of a runtime fix."""
        if self.unavailable and not self.diff:
            return f"Cannot apply: {self.unavailable}"
        parts: list[str] = []
        if self.kind == "runtime":
            parts.append(self.runtime_description)
        if self.diff:
            parts.append(self.diff.rstrip("\n"))
        if self.runs:
            order = ", then ".join(
                run.label + (" (rewritten)" if run.changed else "") for run in self.runs
            )
            parts.append(f"Runs: {order}.")
        if self.unavailable:
            parts.append(f"Cannot apply here: {self.unavailable}")
        return "\n".join(parts)

    def apply(self) -> FixResult:
        """Run the fix in the current IPython shell and report success or the new error."""
        from jax_nbhelp.rerun import apply_fix

        return apply_fix(self)

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "summary": self.summary,
            "safety": self.safety,
            "safe": self.safe,
            "kind": self.kind,
            "preview": self.preview(),
            "diff": self.diff,
            "available": self.unavailable is None,
            "unavailable": self.unavailable,
            "runs": [
                {"label": r.label, "cell": r.cell, "source": r.source, "changed": r.changed}
                for r in self.runs
            ],
        }


@dataclass
class Diagnosis:
    """A recognised error: what happened, where, why, and the ways out."""

    code: str
    name: str
    title: str
    explanation: str
    why: str
    error: str
    location: Location | None = None
    call_site: Location | None = None
    fixes: tuple[Fix, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)

    def __str__(self) -> str:
        from jax_nbhelp.render_text import render_diagnosis

        return render_diagnosis(self)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": 1,
            "code": self.code,
            "name": self.name,
            "title": self.title,
            "explanation": self.explanation,
            "why": self.why,
            "error": self.error,
            "location": self.location.to_json() if self.location else None,
            "call_site": self.call_site.to_json() if self.call_site else None,
            "notes": list(self.notes),
            "fixes": [fix.to_json() for fix in self.fixes],
        }
