"""One notebook, top to bottom in a fresh kernel with jax_nbhelp loaded: what failed, what
jax_nbhelp said, which safe fix ran and whether it worked, and the repaired notebook.

A fix is applied exactly as the card's button applies it (``jax_nbhelp.shell.frontend``), so
it is verified by running, and only a fix marked safe is ever applied: one that changes the
numbers or shrinks the input is listed, never run.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jax_nbhelp.doctor.kernel import DIAGNOSIS_MIME, Kernel, KernelGone, Outcome
from jax_nbhelp.doctor.needs import KnockOn, need_of

SETUP_SOURCE = "%load_ext jax_nbhelp"
# cells a notebook marks as not to run (nbmake's and nbval's tags, and ours)
CHAIN = 3  # fixes in a chain at most: a fix whose run raises a new error, then its fix, ...
SKIP_TAGS = frozenset({"skip-execution", "nbval-skip", "nbhelp-skip"})
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_CELL_LINE = re.compile(r"Cell In\[(\d+)\], line (\d+)")
# the kernel's kept interpret mode, asked as the JupyterLab extension asks (shell/frontend)
_MODE_QUERY = "import jax_nbhelp.shell.frontend as _jnh_frontend\n_jnh_frontend.kept_mode()"


@dataclass
class CellReport:
    index: int  # 1-based, among all the notebook's cells
    error: str  # "Name: first line"
    code: str | None = None  # the diagnosis, None when not diagnosed
    text: str = ""  # the diagnosis as the terminal shows it
    fix: str | None = None  # the fix applied
    fixed: bool = False
    unsafe: list[str] = field(default_factory=list)  # fixes listed but not applied
    why_not: str | None = None  # why it is still failing
    timed_out: bool = False
    expected: bool = False  # tagged raises-exception: the notebook means it to fail
    line: int | None = None  # the line of the cell that raised, when its traceback says
    title: str | None = None  # the diagnosis's title
    recommended: str | None = None  # the card's recommended fix (always a safe one)
    need: str | None = None  # what the machine lacks, said by this failure ("needs optax (...)")
    install: str | None = None  # the line that installs it
    knock_on: str | None = None  # why this failure came only from an earlier one
    count: int | None = None  # its execution count: "In [3]", as the card's places say

    @property
    def place(self) -> str:
        """``cell 4 (In [3])``: its position, and the number the card's places use."""
        return f"cell {self.index}" + (f" (In [{self.count}])" if self.count else "")


@dataclass
class NotebookReport:
    path: str
    cells: int = 0  # code cells in the notebook
    run: int = 0
    failures: list[CellReport] = field(default_factory=list)
    stopped: str | None = None  # why the run ended before the last cell
    error: str | None = None  # why it could not be checked (a dead kernel, no such kernel)
    skipped: int = 0  # cells tagged not to run
    skip: str | None = None  # why the notebook's metadata asks not to run it at all
    needs: list[str] = field(default_factory=list)  # what this machine lacks, once each
    seconds: float = 0.0
    # the repair, numbered as in the repaired notebook: the cells it rewrote, and the
    # first cell it added for a mode kept on (with that cell's source)
    changed: list[int] = field(default_factory=list)
    added: list[int] = field(default_factory=list)
    setup: str | None = None

    @property
    def still_failing(self) -> list[CellReport]:
        return [failure for failure in self.failures
                if not failure.fixed and not failure.expected]

    @property
    def ok(self) -> bool:
        return not self.still_failing and self.stopped is None and self.error is None

    @property
    def exit(self) -> int:
        """The notebook's exit code: 0 every cell ends right, 1 a failure remains, 2 it could
        not be checked."""
        return 2 if self.error is not None else 0 if self.ok else 1


@dataclass
class Options:
    kernel: str | None = None
    fix: bool = False
    timeout: float = 600.0
    keep_going: bool = False
    check_kernels: bool = False  # run cells under the kernel checkup (%%jax_nbhelp check)


def _first_line(outcome: Outcome) -> str:
    ename, evalue = outcome.error or ("Error", "")
    lines = evalue.strip().splitlines()
    return f"{ename}: {lines[0]}" if lines else ename


def _recommended(bundle: dict[str, Any]) -> tuple[int | None, list[str]]:
    """The fix the doctor may apply (1-based), and the labels of those it must not.

    The lasting kind first: a safe rewrite changes the notebook so that it runs next time
    too; a safe runtime fix (a re-run under a mode) only when no rewrite is safe.
    """
    safe: list[tuple[int, str]] = []
    rounding: list[tuple[int, str]] = []  # safe up to float rounding: after the bit-exact
    unsafe: list[str] = []
    for number, fix in enumerate(bundle.get("fixes") or [], 1):
        if not fix.get("available") or fix.get("kind") == "check":
            continue  # the kernel checkup is no fix (--check-kernels runs it)
        if fix.get("safe") and fix.get("rounding"):
            rounding.append((number, str(fix.get("kind"))))
        elif fix.get("safe"):
            safe.append((number, str(fix.get("kind"))))
        else:
            unsafe.append(str(fix.get("label")))
    safe += rounding
    rewrites = [number for number, kind in safe if kind == "rewrite"]
    chosen = rewrites[0] if rewrites else (safe[0][0] if safe else None)
    return chosen, unsafe


def skip_reason(notebook: Any) -> str | None:
    """Why the notebook's metadata asks not to run it (``"nbhelp": {"skip": true}`` or a
    reason), or None."""
    said = (notebook.metadata.get("nbhelp") or {}).get("skip")
    if not said:
        return None
    return said if isinstance(said, str) else "its metadata says nbhelp skip"


def _first_choice(bundle: dict[str, Any]) -> str | None:
    """The fix the card recommends (its primary button: safe, the lasting kind first)."""
    fixes = bundle.get("fixes") or []
    number = bundle.get("recommended")
    if isinstance(number, int) and 1 <= number <= len(fixes):
        return str(fixes[number - 1].get("label"))
    return None


def _printed(outcome: Outcome) -> str:
    return "".join(str(output.get("text", "")) for output in outcome.outputs
                   if output.get("output_type") == "stream")


def _finding_way_out(found: dict[str, Any]) -> str:
    """What the report says of a finding's fix: the doctor does not apply it (it rewrites a
    kernel, verified by checking again in the notebook's kernel, where its card offers it)."""
    fixes = [fix for fix in found.get("fixes") or [] if fix.get("available")
             and fix.get("kind") != "check"]
    if not fixes:
        return "found by the kernel checkup; no mechanical fix"
    return (f"found by the kernel checkup; its card's fix {fixes[0].get('label')!r} "
            "(verified by checking again) applies in the notebook: the doctor does not "
            "rewrite kernels")


def _raising_line(outcome: Outcome) -> int | None:
    """The line of the failing cell that raised, from IPython's traceback ("Cell In[3],
    line 5"): the last frame in this cell."""
    for output in outcome.outputs:
        if output.get("output_type") != "error":
            continue
        text = _ANSI.sub("", "\n".join(output.get("traceback") or []))
        lines = [int(line) for count, line in _CELL_LINE.findall(text)
                 if outcome.execution_count is None or int(count) == outcome.execution_count]
        return lines[-1] if lines else None
    return None


def _nodes(outputs: list[dict[str, Any]]) -> list[Any]:
    import nbformat

    return [nbformat.from_dict(output) for output in outputs]  # type: ignore[no-untyped-call]


# how the doctor's --check-kernels runs a cell, and the codes of the checkup's findings
CHECK_MAGIC = "%%jax_nbhelp check auto"
CHECKUP_CODES = frozenset({"JNH641", "JNH642", "JNH643", "JNH644"})


def _diagnosis_text(outcome: Outcome) -> str:
    """The card's text as the kernel showed it, with the doctor's commands in place of the
    notebook's (``%jax_nbhelp fix N`` is not a command line)."""
    for output in reversed(outcome.outputs):
        data = output.get("data", {})
        if DIAGNOSIS_MIME in data:
            text = str(data.get("text/plain", "")).strip()
            view = data[DIAGNOSIS_MIME].get("view") if isinstance(
                data[DIAGNOSIS_MIME], dict) else None
            if isinstance(view, dict):
                for said, instead in ((view.get("text_fixes_heading"), DOCTOR_FIXES),
                                      (view.get("text_details_line"), DOCTOR_DETAILS)):
                    if isinstance(said, str) and said:
                        text = text.replace(said, instead)
            return text.strip()
    return ""


DOCTOR_FIXES = ("Fixes (--fix applies the recommended one, verified by running it; a fix "
                "that changes the results never):")
DOCTOR_DETAILS = "More: --json carries the whole diagnosis."


class Checkup:
    """Runs ``notebook`` (an nbformat node, changed in place when repaired)."""

    def __init__(self, path: Path, notebook: Any, options: Options,
                 progress: Callable[[str, float | None, bool], None],
                 say: Callable[[str], None]) -> None:
        self.path = path
        self.nb = notebook
        self.options = options
        self.progress = progress
        self.say = say
        self.report = NotebookReport(str(path))
        self._counts: dict[int, int] = {}  # execution count -> cell index (0-based)
        self._modes: list[str] = []
        self._where = ""  # "[3/12] cell 4", for the progress line of a running fix
        self._done: float | None = None  # the share of the notebook's cells already run
        self._knock = KnockOn()
        self._kernel: Kernel | None = None
        self._stopped = False  # stop() was called (Ctrl-C), perhaps before the kernel existed
        self.running: int | None = None  # the cell (1-based) the kernel is running now

    def kernel_name(self) -> str:
        spec = self.nb.metadata.get("kernelspec", {}) or {}
        return self.options.kernel or str(spec.get("name") or "python3")

    def run(self) -> NotebookReport:
        start = time.monotonic()
        code_cells = [i for i, cell in enumerate(self.nb.cells) if cell.cell_type == "code"]
        self.report.cells = len(code_cells)
        skipped = [i for i in code_cells
                   if SKIP_TAGS.intersection(self.nb.cells[i].metadata.get("tags", []))]
        self.report.skipped = len(skipped)
        code_cells = [i for i in code_cells if i not in skipped]
        self.report.skip = skip_reason(self.nb)
        if self.report.skip is not None:
            self.say(f"skipped: {self.report.skip}")
            return self.report
        kernel = self._kernel = Kernel(self.kernel_name(), self.path.parent.resolve())
        if self._stopped:  # Ctrl-C came while the kernel started: stop() had none to stop
            with contextlib.suppress(Exception):
                kernel.close()
            raise KernelGone("stopped (Ctrl-C) while the kernel started")
        try:
            loaded = kernel.run(SETUP_SOURCE, self.options.timeout, silent=True)
            if loaded.error is not None:
                raise KernelGone(f"%load_ext jax_nbhelp failed there: {_first_line(loaded)}")
            for position, index in enumerate(code_cells, 1):
                self._where = f"[{position}/{len(code_cells)}] cell {index + 1}"
                self._done = (position - 1) / len(code_cells)
                self.progress(self._where, self._done, False)
                try:
                    ran = self._cell(kernel, index)
                except KernelGone as exc:
                    raise KernelGone(f"{exc} while cell {index + 1} ran") from None
                if not ran:
                    left = len(code_cells) - position
                    if left and self.report.stopped is None:
                        self.report.stopped = (f"stopped at cell {index + 1}; {left} cell"
                                               f"{'s' if left > 1 else ''} not run")
                    break
            self._keep_modes()
        finally:
            with contextlib.suppress(Exception):  # a dead kernel may not close cleanly
                kernel.close()
            self.report.seconds = time.monotonic() - start
        return self.report

    def stop(self) -> None:
        """Shut its kernel down from another thread (Ctrl-C): the run ends with KernelGone.
        The flag is set first, so a kernel still starting is shut down by ``run`` itself."""
        self._stopped = True
        if self._kernel is not None:
            with contextlib.suppress(Exception):
                self._kernel.km.shutdown_kernel(now=True)

    def _cell(self, kernel: Kernel, index: int) -> bool:
        """Run cell ``index``; False when the run stops here."""
        cell = self.nb.cells[index]
        self.running = index + 1
        source = cell.source
        tagged = "raises-exception" in cell.metadata.get("tags", [])
        if (self.options.check_kernels and not tagged
                and not any(line.lstrip().startswith(("%", "!"))
                            for line in source.splitlines())):
            # checked only where it builds a kernel; its lines stay the cell's own. A
            # lesson's failing cell and a cell of magics run as written: the checkup runs
            # kernels in the TPU interpreter, where a kernel that fails on a CPU runs
            source = f"{CHECK_MAGIC}\n{source}"
        outcome = kernel.run(source, self.options.timeout)
        self.running = None
        self.report.run += 1
        if outcome.execution_count is not None:
            self._counts[outcome.execution_count] = index
            cell.execution_count = outcome.execution_count
        cell.outputs = _nodes(outcome.outputs)
        if outcome.timed_out:
            failure = CellReport(index + 1, f"interrupted after {self.options.timeout:g} s",
                                 timed_out=True, why_not="ran past --timeout")
            self.report.failures.append(failure)
            self.say(f"cell {index + 1}: ran past {self.options.timeout:g} s; interrupted.")
            return self.options.keep_going
        self._knock.output(_printed(outcome), index + 1)
        self._needs()
        if outcome.error is None and tagged:
            self.report.failures.append(CellReport(
                index + 1, "tagged raises-exception, but it raised nothing",
                why_not="the lesson's error no longer happens"))
            self.say(f"cell {index + 1}: tagged raises-exception, but it raised nothing.")
            return True  # the kernel is as the notebook expects after it: go on
        findings = [bundle for bundle in outcome.bundles
                    if str(bundle.get("code")) in CHECKUP_CODES]
        outcome.bundles = [bundle for bundle in outcome.bundles if bundle not in findings]
        for found in findings:
            location = found.get("location") or {}
            failure = CellReport(index + 1, f"kernel checkup: {found.get('title')}",
                                 code=str(found.get("code")), title=str(found.get("title")),
                                 count=outcome.execution_count,
                                 line=location.get("lineno") if location.get("cell") ==
                                 outcome.execution_count else None,
                                 why_not=_finding_way_out(found))
            failure.text = str(found.get("explanation") or "")
            self.report.failures.append(failure)
            self.say(f"{failure.place}: {failure.error}\n{failure.text}")
        if outcome.error is None:
            return True  # a finding leaves the kernel as the cell left it: run on
        failure = CellReport(index + 1, _first_line(outcome), expected=tagged,
                             line=_raising_line(outcome), count=outcome.execution_count)
        self.report.failures.append(failure)
        if not failure.expected:
            self._blame(failure, outcome, cell.source)
        if outcome.bundles:
            bundle = outcome.bundles[-1]
            failure.code = str(bundle.get("code"))
            failure.title = str(bundle.get("title") or "") or None
            failure.text = _diagnosis_text(outcome)
            self.say(f"{failure.place}: {failure.error}\n{failure.text}")
            number, failure.unsafe = _recommended(bundle)
            failure.recommended = _first_choice(bundle)
            if number is not None and not self.options.fix and not failure.expected:
                fix = (bundle.get("fixes") or [])[number - 1]
                safe = ("gives the same values up to float rounding" if fix.get("rounding")
                        else "is safe")
                self.say(f"{failure.place}: fix {number} {safe} and is verified when it runs: "
                         f"`jax_nbhelp doctor {self.path} --fix --write OUT.ipynb` applies it.")
            if failure.expected:
                pass  # a lesson's failing cell stays as it is (Run All goes on past it)
            elif self.options.fix and number is not None:
                self._fix(kernel, index, bundle, number, failure)
            elif self.options.fix and bundle.get("general"):
                failure.why_not = "no catalog entry knows this error (the general view)"
            elif self.options.fix:
                failure.why_not = ("no fix is marked safe: "
                                   + (", ".join(failure.unsafe) if failure.unsafe
                                      else "the diagnosis explains what to change"))
        else:
            failure.why_not = (f"knock-on: {failure.knock_on}" if failure.knock_on
                               else failure.need or "not diagnosed")
            self.say(f"{failure.place}: {failure.error}\n({failure.why_not})")
        return failure.fixed or failure.expected or self.options.keep_going

    def _blame(self, failure: CellReport, outcome: Outcome, source: str) -> None:
        """Whether the failure came only from an earlier one, or names what is missing."""
        ename, evalue = outcome.error or ("", "")
        failure.knock_on = self._knock.failure(ename, evalue, failure.index, source)
        if failure.knock_on is None:
            need = need_of(ename, evalue, failure.index)
            if need is not None:
                failure.need = need.sentence()
                failure.install = need.install
        self._needs()

    def _needs(self) -> None:
        self.report.needs = [need.sentence() for need in self._knock.needs]

    def _fix(self, kernel: Kernel, index: int, bundle: dict[str, Any], number: int,
             failure: CellReport) -> None:
        """Apply fix ``number``; when its run raises a new error that has a safe fix, apply
        that one too (a chain: it starts from the code as the earlier fix left it), up to
        ``CHAIN`` fixes."""
        labels: list[str] = []
        for _ in range(CHAIN):
            fix = bundle["fixes"][number - 1]
            labels.append(str(fix.get("label")))
            outcome, result = self._apply(kernel, bundle, number)
            if result.get("ok"):
                break
            following = result.get("diagnosis")
            if not isinstance(following, dict):
                break
            next_number = _recommended(following)[0]
            if next_number is None or len(labels) == CHAIN:
                break
            self.say(f"{failure.place}: fix {labels[-1]!r} raised a new error "
                     f"[{following.get('code')}]; its fix "
                     f"{following['fixes'][next_number - 1].get('label')!r} keeps the first.")
            bundle, number = following, next_number
        failure.fix = ", then ".join(labels)
        failure.fixed = bool(result.get("ok"))
        if not failure.fixed:
            failure.why_not = str(result.get("error") or "the fix did not run")
            self.say(f"{failure.place}: fix {failure.fix!r} did not work: {failure.why_not}")
            return
        self.say(f"{failure.place}: fixed by {failure.fix!r}, verified by running it.")
        self._record(index, bundle, fix, outcome)
        if fix.get("kind") == "runtime":
            answered = kernel.run(_MODE_QUERY, 60, silent=True).results
            mode = answered[-1].get("mode") if answered else None
            if isinstance(mode, str) and mode and mode not in self._modes:
                self._modes.append(mode)

    def _apply(self, kernel: Kernel, bundle: dict[str, Any], number: int
               ) -> tuple[Outcome, dict[str, Any]]:
        """Run fix ``number`` of ``bundle`` as the card's button does; its outcome and
        result."""
        call = (f"import jax_nbhelp.shell.frontend as _jnh_frontend\n"
                f"_jnh_frontend.apply({bundle.get('card_id')!r}, {number}, "
                f"{bundle.get('session')!r})")

        def progress(report: dict[str, Any]) -> None:  # a long fix: how far it is
            self.progress(f"{self._where}: fix {number}, {report.get('text', '')}",
                          self._done, True)

        outcome = kernel.run(call, self.options.timeout, silent=True, on_progress=progress)
        return outcome, (outcome.results[-1] if outcome.results else {})

    def _record(self, index: int, bundle: dict[str, Any], fix: dict[str, Any],
                outcome: Outcome) -> None:
        """Write the fix's whole-cell edits into their cells, with a note of why."""
        why = {"code": bundle.get("code"), "title": bundle.get("title"),
               "fix": fix.get("label"), "summary": fix.get("summary")}
        for edit in fix.get("edits") or []:
            target = self._counts.get(edit.get("cell")) if edit.get("cell") else None
            if target is None or self.nb.cells[target].source != edit.get("original"):
                continue  # not a cell of this notebook as it stands: left alone
            cell = self.nb.cells[target]
            cell.source = edit["source"]
            cell.metadata["jax_nbhelp"] = {**why, "original": edit["original"]}
            if target + 1 not in self.report.changed:
                self.report.changed.append(target + 1)
        failing = self.nb.cells[index]
        failing.outputs = _nodes([output for output in outcome.outputs
                                  if output.get("output_type") != "error"])
        failing.metadata.setdefault("jax_nbhelp", why)

    def _keep_modes(self) -> None:
        """A mode a fix kept "from now on" becomes the notebook's first code cell."""
        if not self._modes:
            return
        import nbformat

        lines = [SETUP_SOURCE, *(f"%jax_nbhelp interpret {mode}" for mode in self._modes)]
        cell = nbformat.v4.new_code_cell("\n".join(lines))  # type: ignore[no-untyped-call]
        cell.metadata["jax_nbhelp"] = {
            "summary": "An interpret mode a fix kept on from now on, so that the notebook "
                       "runs on this runtime from its first cell."}
        first = next((i for i, c in enumerate(self.nb.cells) if c.cell_type == "code"),
                     len(self.nb.cells))
        self.nb.cells.insert(first, cell)
        self.report.changed = [n + 1 if n > first else n for n in self.report.changed]
        self.report.added = [first + 1]
        self.report.setup = cell.source
