"""Executes a fix in the user's shell and reports what happened.

Code runs in the user's namespace, like the cell it replaces, but outside IPython's
run_cell: the re-run gets no new execution count, and its error comes back to jax_nbhelp
(diagnosed, so fixes chain) instead of stopping the cell that asked for the fix.
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import os
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from types import TracebackType
from typing import Any

from jax_nbhelp.core.model import CellRun, Fix, FixResult, Progress
from jax_nbhelp.core.session import FailedFix, RerunSource, Session, current, typed_source
from jax_nbhelp.diagnosis.sources import leading_blank_lines
from jax_nbhelp.fix import loop_resume
from jax_nbhelp.fix.fix_stop import Deferred, Stop, deferred_interrupts, stoppable
from jax_nbhelp.jaxapi import capabilities, grid_progress, interpret_cost


def _cell_filename(session: Session, shell: Any, run: CellRun) -> str:
    """A filename for the cell as the fix leaves it, cached so tracebacks show its lines.

    The whole cell is cached, not the piece that runs: lines keep their numbers, and a later
    error in code the fix defined is located in its cell at its line.
    """
    whole = run.cell_source if run.cell_source is not None else run.source
    transformed = shell.transform_cell(whole)
    try:
        filename = str(shell.compile.cache(transformed, run.cell or 0, raw_code=whole))
    except TypeError:  # IPython before 8 takes no raw_code
        filename = str(shell.compile.cache(transformed, run.cell or 0))
    if whole != typed_source(shell, run.cell):
        # Errors raised from this code are located in the source the fix ran.
        session.reruns[filename] = RerunSource(cell=run.cell, source=whole)
    return filename


def executed_source(run: CellRun) -> str:
    """What is handed to IPython for ``run``: its source, placed at its lines.

    A ``%%time`` cell's body is compiled by the magic itself, numbered from the line after
    the header, so blank lines (and nothing else) stand in for the statements that do not
    run again.
    """
    if not run.header:
        return run.source
    gap = "\n" * max(0, run.first_line - run.header_line - 1)
    return run.header + gap + run.source[len(run.header):]


def _compile_and_run(shell: Any, run: CellRun, source: str, filename: str) -> Any:
    """Run ``source`` (``executed_source(run)``) at its own lines of its cell, under the
    cell's ``filename``; return the last expression's value."""
    whole = run.cell_source if run.cell_source is not None else run.source
    # IPython drops a cell's leading blank lines before compiling it (sources.locate adds
    # them back); the piece must be numbered the same way.
    first = (run.header_line if run.header else run.first_line) - leading_blank_lines(
        whole.splitlines())
    transformed = shell.transform_cell(source)
    tree = ast.parse(transformed, filename=filename)
    ast.increment_lineno(tree, max(0, first - 1 - leading_blank_lines(source.splitlines())))
    tree = shell.transform_ast(tree) or tree
    if run.loop is not None and tree.body and isinstance(tree.body[0], ast.For):
        tree = loop_resume.transform(tree, run.loop)
    body = tree.body
    last_expr = body.pop() if body and isinstance(body[-1], ast.Expr) else None
    namespace_globals, namespace_locals = shell.user_global_ns, shell.user_ns
    flags = getattr(shell.compile, "flags", 0)
    if body:
        module = ast.Module(body=body, type_ignores=[])
        try:
            exec(compile(module, filename, "exec", flags, dont_inherit=True),
                 namespace_globals, namespace_locals)
        finally:
            namespace_locals.pop(loop_resume.FLAG, None)
    if last_expr is None:
        return None
    expression = ast.Expression(body=last_expr.value)
    return eval(compile(expression, filename, "eval", flags, dont_inherit=True),
                namespace_globals, namespace_locals)


class _Snapshot:
    """The user's names as they were before a fix, to put back if the fix fails.

    Only bindings are restored (what a statement assigned, defined or deleted); an object
    changed in place (``history.append(...)``) cannot be, which is why a fix never runs such
    a statement again unless it is in the part of the failing cell that had not run.
    """

    def __init__(self, namespace: dict[str, Any]) -> None:
        self.namespace = namespace
        self.saved = dict(namespace)

    def restore(self) -> list[str]:
        changed = []
        for name in list(self.namespace):
            if name not in self.saved:
                del self.namespace[name]
                changed.append(name)
            elif self.namespace[name] is not self.saved[name]:
                self.namespace[name] = self.saved[name]
                changed.append(name)
        for name, value in self.saved.items():
            if name not in self.namespace:
                self.namespace[name] = value
                changed.append(name)
        return sorted(changed)


def _forget_traces() -> None:
    """Drop JAX's caches of traced and compiled functions.

    JAX caches a trace by the function object. A function the fix did not re-define
    (``scaled_core = lambda x: scaled(x)``) looks ``scaled`` up when it is traced, so its
    cached trace still holds the old ``scaled``. Only the caches go: the next call of any
    jitted function compiles again.
    """
    jax = sys.modules.get("jax")
    clear = getattr(jax, "clear_caches", None)
    if callable(clear):
        clear()


def _record_output(shell: Any, run: CellRun, value: Any) -> None:
    """Give the value of the failing cell's last expression to ``Out[N]``, ``_N`` and ``_``,
    as if the cell had run once (see the README: what a fix leaves in the kernel)."""
    if value is None or run.cell is None:
        return
    namespace = shell.user_ns
    out = namespace.get("Out")
    if isinstance(out, dict):
        out[run.cell] = value
    namespace[f"_{run.cell}"] = value
    namespace["___"], namespace["__"] = namespace.get("__", ""), namespace.get("_", "")
    namespace["_"] = value


def _user_traceback(exc: BaseException) -> TracebackType | None:
    """``exc``'s traceback without the outermost frames of jax_nbhelp's re-run machinery."""
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None and \
            tb.tb_frame.f_code.co_filename.startswith(package):
        tb = tb.tb_next
    return tb


def _format_error(shell: Any, exc: BaseException) -> str:
    try:
        # The traceback starts at the user's code, as it does for a cell IPython runs.
        structured = shell.InteractiveTB.structured_traceback(
            type(exc), exc, _user_traceback(exc)
        )
        return str(shell.InteractiveTB.stb2text(structured))
    except Exception:
        return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


# A fix that runs longer than this reports its progress every PROGRESS_EVERY seconds.
PROGRESS_AFTER = 3.0
PROGRESS_EVERY = 1.0


@contextlib.contextmanager
def _reporting(progress: Progress | None, fix: Fix,
               counter: grid_progress.StepCounter) -> Iterator[None]:
    """Call ``progress(FixProgress)`` from a daemon thread while the block runs (a long
    interpreted kernel): the fix itself holds the kernel's main thread. The thread runs in
    a copy of this context, so what it displays goes to the request that runs the fix."""
    if progress is None:
        yield
        return
    done = threading.Event()

    def report() -> None:
        wait = PROGRESS_AFTER
        while not done.wait(wait):
            try:
                progress(interpret_cost.progress(fix.estimate, counter.elapsed(), counter.steps,
                                                 counter.first_at, counter.last_at))
            except Exception:  # a display that failed must not stop the fix
                return
            wait = PROGRESS_EVERY

    context = contextvars.copy_context()
    thread = threading.Thread(target=context.run, args=(report,),
                              name="jax_nbhelp-fix-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        # no report may come after the fix returns (it would undo the "ran" that follows)
        thread.join(timeout=5)


def apply_fix(fix: Fix, progress: Progress | None = None, session: object = None) -> FixResult:
    """Run ``fix`` in the shell of ``session`` (the current one by default) and remember
    the result there as ``jax_nbhelp.last_result()``."""
    session = session if isinstance(session, Session) else current()
    with deferred_interrupts() as early, grid_progress.counting() as counter, \
            _reporting(progress, fix, counter):
        result = _apply(fix, session, early)
    if fix.estimate is not None and (result.ok or counter.steps):
        # what the run really took corrects the next estimate of this session
        interpret_cost.calibrate(session.speed, fix.estimate, counter.elapsed(),
                                 counter.steps, counter.first_at, counter.last_at)
    session.last_result = result
    if result.diagnosis is not None:
        session.last = result.diagnosis
    return result


def _apply(fix: Fix, session: Session, early: Deferred | None = None) -> FixResult:
    if fix.unavailable:
        return FixResult(ok=False, fix_label=fix.label, error=f"Cannot apply: {fix.unavailable}")
    shell = session.running_shell()
    if shell is None:
        return FixResult(
            ok=False,
            fix_label=fix.label,
            error="Cannot apply: fixes re-run notebook cells and need a running IPython shell.",
        )
    if not fix.runs:
        return FixResult(ok=False, fix_label=fix.label, error="Cannot apply: nothing to run.")
    return _FixRun(fix, shell, session).run(early)


class _FixRun:
    """One run of a fix: it runs the fix's cells, and builds the result; a run that fails
    or is stopped first puts back what it changed."""

    def __init__(self, fix: Fix, shell: Any, session: Session) -> None:
        self.fix = fix
        self.shell = shell
        self.session = session
        self.start = time.perf_counter()
        self.snapshot = _Snapshot(shell.user_ns)
        self.executed: list[str] = []
        self.ran = fix.runs[-1]  # the run going on (or the last one)
        self.filename = ""
        # a fix that redefines functions makes JAX's cached traces of the old ones stale
        self.redefines = any(run.rewritten for run in fix.runs)

    def run(self, early: Deferred | None) -> FixResult:
        if self.redefines:
            _forget_traces()
        stop: Stop | None = None
        try:
            wrapper = (self.fix.runtime() if self.fix.runtime is not None
                       else contextlib.nullcontext())
            with stoppable(early) as stop, wrapper:
                value = self._cells()
        except BaseException as exc:
            # An interrupt arrives as KeyboardInterrupt, or (stopped inside an interpreted
            # kernel's callback) as the kernel's own error with the stop requested.
            stopped = isinstance(exc, KeyboardInterrupt) or (stop is not None and stop.requested)
            if not stopped and isinstance(exc, Exception):
                return self.failed(exc)
            if not stopped:
                raise
            return self.stopped()
        return self.succeeded(value)

    def _cells(self) -> Any:
        """Run the fix's cells in order; the last one's value."""
        value: Any = None
        for run in self.fix.runs:
            self.ran = run
            self.executed.append(executed_source(run))
            self.filename = _cell_filename(self.session, self.shell, run)
            value = _compile_and_run(self.shell, run, self.executed[-1], self.filename)
        return value

    def _undo(self) -> tuple[str, ...]:
        """Put back the names the run changed; the names, as they were put back."""
        restored = self.snapshot.restore()
        if self.redefines:
            _forget_traces()  # traces made with the fix's definitions are stale again
        capabilities.clear_failed_gpu_interpreter()  # a kernel that failed in it left memory
        return tuple(restored)

    def elapsed(self) -> float:
        """Seconds since the fix started, to the millisecond: the one figure that the
        bundle, the static copy and the text all show (each rounding a finer figure on its
        own could say 0.14 s in one and 0.15 s in another)."""
        return round(time.perf_counter() - self.start, 3)

    def succeeded(self, value: Any) -> FixResult:
        _record_output(self.shell, self.ran, value)
        for run in self.fix.runs:
            if run.resumed and run.cell is not None:
                self.session.raised.forget(run.cell)  # its rest ran: that cell completed
        return FixResult(
            ok=True,
            fix_label=self.fix.label,
            source=self.ran.source,
            seconds=self.elapsed(),
            value=value,
            executed=tuple(self.executed),
            repeated=tuple(run.repeats for run in self.fix.runs if run.repeats),
            setup_line=self.fix.setup_line,
            safe=self.fix.safe,
            changes=None if self.fix.safe else self.fix.changes,
        )

    def stopped(self) -> FixResult:
        """Only the fix stops, and it leaves nothing behind."""
        restored = self._undo()
        seconds = self.elapsed()
        return FixResult(
            ok=False,
            fix_label=self.fix.label,
            error=f"Stopped by you after {seconds:.0f} s, while running {self.ran.where}; "
                  "what the fix changed was put back.",
            source=self.ran.source,
            seconds=seconds,
            restored=restored,
            executed=tuple(self.executed),
            stopped=True,
        )

    def failed(self, exc: Exception) -> FixResult:
        """Undone, its new error diagnosed: a fix that did not succeed leaves the names as it
        found them (a half-applied fix, such as a kernel rebuilt in interpret mode, would
        change the next error)."""
        restored = self._undo()
        diagnosis = _diagnose_undone(self.fix, self.ran, self.filename, exc, self.shell,
                                     self.session)
        return FixResult(
            ok=False,
            fix_label=self.fix.label,
            error=f"{type(exc).__name__}: {exc}".splitlines()[0],
            diagnosis=diagnosis,
            source=self.ran.source,
            seconds=self.elapsed(),
            traceback=_format_error(self.shell, exc),
            restored=restored,
            executed=tuple(self.executed),
        )


def _diagnose_undone(fix: Fix, ran: CellRun, filename: str, exc: BaseException,
                     shell: Any, session: Session) -> Any:
    """Diagnose the error of a fix that was undone (``ran`` raised, compiled as
    ``filename``): fixes for it carry this fix's runs."""
    from jax_nbhelp.diagnosis.engine import diagnose

    index = fix.runs.index(ran)
    session.failed_fix = FailedFix(
        filename=filename,
        run=ran,
        before=fix.runs[:index],
        after=fix.runs[index + 1:],
        edits=fix.edits,
    )
    try:
        return diagnose(exc, shell, session)
    except Exception:
        return None
    finally:
        session.failed_fix = None
