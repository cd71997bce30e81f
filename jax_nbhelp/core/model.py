"""The data jax_nbhelp hands to users, scripts and frontends.

Everything here is plain data: strings, numbers and source text. A diagnosis never keeps
frames, tracebacks or the exception itself, because those keep the user's arrays (and
accelerator memory) alive for as long as the diagnosis is remembered.

Every class is frozen and says nothing in prose: what a card says of them (the cause, the
recommended fix, each safety sentence, an outcome) is decided once by the view model of the
show layer (``show/view.py``). This is the bottom layer: it imports nothing of jax_nbhelp
above ``core/``. What needs a higher layer is handed in: a ``Fix`` gets the callable that
runs it from the fix layer that builds it, and ``str(diagnosis)`` and ``str(result)`` go
through the text renderers the package wires in at import.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from jax_nbhelp.core.protocol import cell_label

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
            where = cell_label(self.cell)
            if self.rewritten:
                where += " (as re-run by jax_nbhelp)"
        else:
            where = self.filename
        return f"{where}, line {self.lineno}"

    def to_json(self) -> dict[str, Any]:
        # its fields are plain values: no deep copy (dataclasses.asdict) needed
        return {"kind": self.kind, "filename": self.filename, "lineno": self.lineno,
                "line": self.line, "function": self.function, "cell": self.cell,
                "source": self.source, "rewritten": self.rewritten, "label": self.label}


@dataclass(frozen=True)
class LoopResume:
    """How a fix resumes the top-level ``for`` loop its run starts with (``fix/loop_resume``)."""

    # from the loop's body to the statement that raised: (index, branch), branch "" for the
    # statement itself, "body"/"orelse" for an if on the way, "body" for a try
    path: tuple[tuple[int, str], ...]
    position: int  # the iteration that raised, 0-based
    iteration: str  # the loop variable then, as the preview names it: "i = 2"
    already_ran: str = ""  # the lines of that iteration before the one that raised


@dataclass(frozen=True)
class CellRun:
    """One piece of a cell that a fix executes, exactly as its preview shows it.

    ``source`` is whole top-level statements of the cell (lines ``first_line`` to
    ``last_line``), or the whole cell; it runs at those lines, so a traceback points at the
    line the user sees. A ``%%time`` cell's ``header`` line runs with its statements.
    """

    label: str  # the cell, as a user names it: "In [2]"
    source: str
    cell: int | None = None
    first_line: int = 1
    last_line: int = 0  # 0: as far as the source goes
    why: str = ""  # "rewritten: def scaled", "uses scaled", "the for loop where line 4 raised"
    rewritten: bool = False
    resumed: bool = False  # the failing cell, from the statement that raised to its end
    cell_source: str | None = None  # the whole cell as it reads with the fix
    header: str = ""  # a %%time cell's first line, which runs with the statements
    header_line: int = 0
    loop: LoopResume | None = None  # the run starts with a for loop, resumed where it raised
    # what of it had already run before the error and runs again ("" when nothing does)
    repeats: str = ""

    @property
    def changed(self) -> bool:
        return self.rewritten

    @property
    def where(self) -> str:
        """Which lines run: ``In [3] from line 2``, ``In [2], lines 3-7``."""
        last = self.last_line or self.first_line + max(
            0, len((self.source[len(self.header):]).splitlines()) - 1)
        if self.resumed:
            span = f" from line {self.first_line}"
        elif last > self.first_line:
            span = f", lines {self.first_line}-{last}"
        else:
            span = f", line {self.first_line}"
        return f"{self.label}{span}"

    @property
    def description(self) -> str:
        return self.where + (f" ({self.why})" if self.why else "")

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "cell": self.cell,
            "source": self.source,
            "changed": self.changed,
            "first_line": self.first_line,
            "last_line": self.last_line,
            "why": self.why,
            "where": self.where,
            "resumed": self.resumed,
        }


@dataclass(frozen=True)
class CellEdit:
    """A whole cell before and after a rewrite fix: what "Apply to cell" writes."""

    label: str
    cell: int | None
    original: str
    source: str

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "cell": self.cell, "original": self.original,
                "source": self.source}


@dataclass(frozen=True)
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
    restored: tuple[str, ...] = ()  # names put back as they were because the fix failed
    stopped: bool = False  # the user interrupted it (then ok is False and nothing stays)
    # what was handed to IPython, run by run: each run's source, placed at its lines
    executed: tuple[str, ...] = ()
    # what ran again that had run before the error: not as if the fixed code ran once
    repeated: tuple[str, ...] = ()
    # the fix's set-up line (Fix.setup_line), said with a success: how to keep it
    setup_line: str | None = None
    # False for a fix that changes what the program computes (Fix.safe): it ran, but it
    # did not fix the program as written, and its outcome never says "Fixed"
    safe: bool = True
    changes: str | None = None  # what it changed (Fix.changes), said with its outcome
    # a kernel checkup's answer (Fix.kind "check"): which checks ran on which kernels, and
    # what they found; its finding's card is ``diagnosis``
    checked: str | None = None

    # how str() reads: the outcome's text form, wired in by jax_nbhelp/__init__.py
    text_renderer: ClassVar[Callable[[FixResult], str] | None] = None

    def __str__(self) -> str:
        renderer = FixResult.text_renderer
        if renderer is None:
            return f"{'Fixed' if self.ok else 'Not fixed'}: {self.fix_label!r}"
        return renderer(self)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "fix": self.fix_label,
            "error": self.error,
            "seconds": round(self.seconds, 3),
            "source": self.source,
            "diagnosis": self.diagnosis.to_json() if self.diagnosis else None,
            "restored": list(self.restored),
            "repeated": list(self.repeated),
            "stopped": self.stopped,
            "safe": self.safe,
            "changes": self.changes,
            "checked": self.checked,
        }


# Longer than this and the card says so before the fix runs, and the fix reports progress.
LONG_SECONDS = 30.0


@dataclass(frozen=True)
class Estimate:
    """How long a Pallas kernel takes in an interpreter (``jaxapi/interpret_cost.py``)."""

    steps: int
    mode: str  # "hlo", "tpu" or "gpu"
    seconds: float
    step_seconds: float = 0.0  # one grid step, as estimated (calibration included)
    calibrated: bool = False  # corrected by an interpreted run on this machine
    # the fix's run reports its grid steps (it sets TPU interpret mode with jax_nbhelp's
    # own params, which carry the per-step hook): until the first step, no bar
    counted: bool = False

    @property
    def long(self) -> bool:
        return self.seconds >= LONG_SECONDS

    def to_json(self) -> dict[str, object]:
        return {"steps": self.steps, "mode": self.mode, "seconds": round(self.seconds, 1),
                "long": self.long, "calibrated": self.calibrated}


RuntimeWrapper = Callable[[], AbstractContextManager[object]]


@dataclass(frozen=True)
class FixProgress:
    """How far a running fix is, as a card shows it (``docs/diagnosis.schema.json``,
    ``progress``). ``steps`` are grid steps counted by the interpreter's own per-step hook
    (TPU interpret mode has one); without it the bar follows the time estimate."""

    seconds: float  # elapsed
    steps: int | None = None  # grid steps run so far; None: the interpreter counts none
    total: int | None = None  # grid steps the diagnosed kernel has; None: unknown
    seconds_left: float | None = None  # None: unknown (no estimate, or past it)
    fraction: float | None = None  # 0..1 for the bar; None: no bar
    text: str = ""  # "grid step 1,200 of 4,096 · 40 s · about 1 min left"

    def to_json(self) -> dict[str, Any]:
        return {"seconds": round(self.seconds, 1), "steps": self.steps, "total": self.total,
                "seconds_left": (round(self.seconds_left, 1)
                                 if self.seconds_left is not None else None),
                "fraction": round(self.fraction, 4) if self.fraction is not None else None,
                "text": self.text}


Progress = Callable[[FixProgress], None]
# Runs a fix in the current shell: handed to each Fix by the fix layer (fix/rerun.py).
# (the fix, its progress callback, the session it runs in: a core.session.Session, which
# imports this module, hence object here)
FixRunner = Callable[["Fix", "Progress | None", object], FixResult]


@dataclass(frozen=True)
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
    # "check": not a fix but the kernel checkup of the code as it stands (shell/kernel_checkup),
    # offered on a card about a Pallas kernel; never recommended, never applied by the doctor
    kind: Literal["rewrite", "runtime", "check"] = "rewrite"
    diff: str = ""
    edits: tuple[CellEdit, ...] = ()
    # statements that read a name the fix changes but are not re-run (a loop, x += 1):
    # running them again would repeat their effects; the preview names them
    not_rerun: tuple[str, ...] = ()
    # how long the kernel it runs takes in an interpreter, if known
    estimate: Estimate | None = None
    # a fix that leaves a mode on for the rest of the kernel: the line that turns it on,
    # for the notebook's first cell, so a fresh run of the notebook needs no click
    setup_line: str | None = None
    # what a fix that is not safe changes, said with its outcome where it is a shape or a
    # dtype: "`noise` is (8, 8); the call asked for (8,)"
    changes: str | None = None
    # a safe fix whose float results are the same operations' up to rounding: a function
    # NumPy and jax.numpy both have, computed by XLA's own implementation, or a sum over the
    # same numbers in another order. JAX itself promises no more between a jitted and an
    # eager run of the same code, so it is no other answer; the card says "Same values up
    # to float rounding" where a safe fix says "Same results", and never calls it bit-exact
    rounding: bool = False
    # what runs it (fix.rerun.apply_fix); None for a fix that was never given one
    runner: FixRunner | None = field(default=None, repr=False, compare=False)

    # how preview() reads: the view model's preview, wired in by jax_nbhelp/__init__.py
    previewer: ClassVar[Callable[[Fix], str] | None] = None

    def preview(self) -> str:
        """What the fix will run, as every card shows it (``show.view.preview``)."""
        previewer = Fix.previewer
        return previewer(self) if previewer is not None else self.diff

    def apply(self, progress: Progress | None = None, session: object = None) -> FixResult:
        """Run the fix in the shell of ``session`` (a ``core.session.Session``; the current
        one by default) and report success or the new error.

        ``progress(FixProgress)`` is called from another thread while a long fix runs. An
        interrupt (KeyboardInterrupt) stops only the fix: what it changed is put back.
        """
        if self.runner is None:
            reason = self.unavailable or "nothing was given to run this fix"
            return FixResult(ok=False, fix_label=self.label, error=f"Cannot apply: {reason}")
        return self.runner(self, progress, session)

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "summary": self.summary,
            "safety": self.safety,
            "safe": self.safe,
            "rounding": self.rounding,
            "kind": self.kind,
            "diff": self.diff,
            "available": self.unavailable is None,
            "unavailable": self.unavailable,
            "runs": [run.to_json() for run in self.runs],
            "edits": [edit.to_json() for edit in self.edits],
            "not_rerun": list(self.not_rerun),
            "estimate": self.estimate.to_json() if self.estimate is not None else None,
            "setup_line": self.setup_line,
        }


@dataclass(frozen=True)
class CheckPart:
    """One part of a check JAX made, with its value in JAX's frame as it raised."""

    text: str  # as JAX's source spells it: "devices.ndim", "len(axis_names)"
    value: str  # "1", "int8", "float32[2, 3]"
    # the value was not read but follows from the raise: JAX raises only when it is so
    # (a call of JAX's own, ``dtypes.issubdtype(dtype, np.unsignedinteger)``: False)
    implied: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "value": self.value, "implied": self.implied}


@dataclass(frozen=True)
class Check:
    """The check JAX's code made before it raised (``diagnosis/jax_check.py``): the
    condition that guarded the ``raise`` (or the ``assert``), read from JAX's source, with
    the values of its parts read from JAX's frame."""

    kind: Literal["if", "else", "assert", "raise", "call", "except", "try"]
    condition: str  # as JAX wrote it: "not dtypes.issubdtype(dtype, np.unsignedinteger)"
    requirement: str | None  # what had to hold instead, where it reads simply
    file: str  # under jax/_src (or jax/): "random/core.py"
    line: int
    function: str  # the function that raised: "bits"
    parts: tuple[CheckPart, ...] = ()
    # the JAX function that asked a checking helper (``_try_broadcast_shapes``) for it, and
    # how: "broadcasting_shape_rule: _try_broadcast_shapes(*shapes, name=name)"
    asked_by: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "condition": self.condition,
                "requirement": self.requirement, "file": self.file, "line": self.line,
                "function": self.function, "parts": [part.to_json() for part in self.parts],
                "asked_by": self.asked_by}


@dataclass(frozen=True)
class BoundArgument:
    """One parameter of the JAX function a user's line called, and what the call gave it."""

    parameter: str
    expression: str | None  # the user's text; None where the parameter kept its default
    value: str  # "float32[2, 3]", "(4,)", "None"
    read: bool = False  # the failed check read it (or a value derived from it)
    doc: str = ""  # the parameter's line in the function's docstring

    @property
    def default(self) -> bool:
        return self.expression is None

    def to_json(self) -> dict[str, Any]:
        return {"parameter": self.parameter, "expression": self.expression,
                "value": self.value, "default": self.default, "read": self.read,
                "doc": self.doc}


@dataclass(frozen=True)
class Binding:
    """The user's call of a public JAX function, bound to its signature."""

    function: str  # as the user spelled it: "jnp.linalg.cholesky", "jax.jit(f)", "@"
    public: str  # JAX's public name: "jax.numpy.linalg.cholesky" ("" for an operator)
    signature: str  # as a call would be written: "cholesky(a, *, upper=False, ...)"
    arguments: tuple[BoundArgument, ...] = ()
    url: str | None = None  # the function's page in JAX's API reference
    # Python's own binding failed: which argument does not fit which parameter
    mismatch: str | None = None
    # the error was raised inside the function, by an operation the user did not write
    inside: str = ""  # "add, in symmetrize (lax/linalg.py)"

    def argument(self, parameter: str) -> BoundArgument | None:
        return next((a for a in self.arguments if a.parameter == parameter), None)

    @property
    def read(self) -> tuple[BoundArgument, ...]:
        return tuple(argument for argument in self.arguments if argument.read)

    def to_json(self) -> dict[str, Any]:
        return {"function": self.function, "public": self.public, "signature": self.signature,
                "arguments": [argument.to_json() for argument in self.arguments],
                "url": self.url, "mismatch": self.mismatch, "inside": self.inside}


@dataclass(frozen=True)
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
    # fixes kept back by classroom mode (show.display.presented): the card says they exist
    hidden_fixes: int = 0
    # the error was raised for a Pallas kernel: notes about interpret modes bear on it
    concerns_kernel: bool = False
    # the general view (JNH000): JAX raised the error and no catalog entry knows it; the card
    # claims no cause and offers no fix, and says where, under what and on what it failed
    general: bool = False
    transforms: tuple[str, ...] = ()  # outermost first: ("jit", "vmap", "grad")
    values: tuple[tuple[str, str], ...] = ()  # (expression, "float32[4, 5]") on the line
    hints: tuple[str, ...] = ()  # what JAX's message suggests
    doc_url: str | None = None  # JAX's page for the error
    # the explained view (JNH001): the check JAX made and the user's call bound to the
    # function's signature, read from JAX's source and frames (``diagnosis/explained.py``);
    # an entry may carry them too
    check: Check | None = None
    binding: Binding | None = None
    explained: bool = False  # the explained view itself (JNH001), not an entry
    # how str() reads: the text renderer of the show layer, wired in by jax_nbhelp/__init__.py
    text_renderer: ClassVar[Callable[[Diagnosis], str] | None] = None

    def __str__(self) -> str:
        renderer = Diagnosis.text_renderer
        if renderer is None:
            return f"jax_nbhelp [{self.code}] {self.title}\n\n{self.explanation}"
        return renderer(self)

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
            "hidden_fixes": self.hidden_fixes,
            "general": self.general,
            "transforms": list(self.transforms),
            "values": [{"text": text, "summary": summary} for text, summary in self.values],
            "hints": list(self.hints),
            "doc_url": self.doc_url,
            "explained": self.explained,
            "check": self.check.to_json() if self.check is not None else None,
            "binding": self.binding.to_json() if self.binding is not None else None,
        }


@dataclass(frozen=True)
class Finding:
    """What the kernel checkup (``%%jax_nbhelp check``) found in one kernel."""

    kind: Literal["race", "uninitialized", "out_of_bounds", "order"]
    kernel: str  # the kernel function's name
    location: Location | None  # the line in the user's kernel (or its pallas_call)
    message: str


@dataclass(frozen=True)
class Checkup:
    """A kernel checkup: the kernels the cell built, the checks that ran, what they found."""

    kernels: tuple[str, ...]
    checks: tuple[str, ...]  # "race", "uninitialized", "out_of_bounds", "order"
    findings: tuple[Finding, ...]
    not_run: tuple[str, ...] = ()  # checks this JAX's interpreter lacks: never "clean"
    note: str | None = None  # why nothing was checked, where that is so
    stopped: bool = False  # interrupted: the namespace is as it was before the cell

    @property
    def clean(self) -> bool:
        return (bool(self.kernels) and not self.findings and not self.not_run
                and not self.stopped)
