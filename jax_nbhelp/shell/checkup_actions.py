"""What a card offers of the kernel checkup (``kernel_checkup.py``): "Check this kernel" on
every card about a Pallas kernel, and the mechanical fixes of its findings, each verified by
checking again.

"Check this kernel" is a fix of kind "check" after a kernel card's fixes (never the
recommended one, never applied by the doctor): it runs the checkup of the failing cell as it
stands (as the card's fix that last ran left it, after one) and answers as a fix's result
(``FixResult.checked``), with the first finding's card.

Two findings have a way out that follows from the kernel's own code:

- ``order`` (a "parallel" grid dimension carries state): the kernel's ``pallas_call`` marks
  its dimensions ``"arbitrary"`` instead. The results are the ones the steps in order give;
  on a chip with several cores the dimension no longer splits between them.
- ``uninitialized`` (an accumulator read before it was written): the kernel writes zeros
  into the ref it accumulates into before anything else, on the first step of the grid's
  last dimension (``@pl.when(pl.program_id(k) == 0)``), or on every run of a kernel with no
  grid.

Each is a rewrite of the cell that holds the kernel (or its ``pallas_call``), shown as a
diff. Applying it runs that cell as rewritten, then the checkup of the cell that was checked
(``kernel_checkup.check``): it is "Fixed" only when that checkup finds nothing, so the fix
is verified by a clean re-check and the same results on the NaN and the zero fill. Where the
code is not in a cell, or not written the way the rewrite needs, no fix is offered and the
card's way out says what to change.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import functools
import time
from typing import Any

from jax_nbhelp.core.model import (
    CellEdit,
    CellRun,
    Diagnosis,
    Finding,
    Fix,
    FixProgress,
    FixResult,
    Progress,
)
from jax_nbhelp.core.protocol import cell_label
from jax_nbhelp.core.session import (
    RerunSource,
    Session,
    current,
    running_cell,
    typed_source,
)
from jax_nbhelp.diagnosis.context import module_alias
from jax_nbhelp.rewrite import unified_diff
from jax_nbhelp.shell.kernel_checkup import (
    CODES,
    accumulated_ref,
    as_diagnosis,
    available,
    check,
    checkup_said,
    clean_line,
)

SAFETY = {
    "order": ("Same results as the grid's steps run in order, which is what the checkup "
              "compared against. On a chip with several cores the dimension no longer "
              "splits between them, so it may run slower there."),
    "uninitialized": ("Same results wherever the kernel was right by chance (memory that "
                      "happened to start as zeros); what it changes is what the chip gave "
                      "from memory nobody wrote."),
}


# -- "Check this kernel": the checkup offered on a kernel's card --------------------------

CHECK_LABEL = "Check this kernel"
RUNS = 5  # the checkup's runs of a TPU kernel: two zero fills, two orders, the kept one
STOPPED = "The checkup was stopped: the namespace is as it was before it."
CHECK_SUMMARY = "races, uninitialized and out-of-bounds reads, order dependence"
CHECK_SAFETY = ("It changes no code: the cell as it stands (as a fix left it, after one) runs "
                "five times in JAX's TPU interpreter with its checks on, and the namespace "
                "keeps the last run's results, as if the cell had run once in interpret mode.")


def with_check(diagnosis: Diagnosis, session: Session) -> Diagnosis:
    """``diagnosis`` with "Check this kernel" after its fixes, where it is about a Pallas
    TPU kernel that one of its fixes makes run, the installed JAX's interpreter has checks,
    and the failing cell is known. A card with no fix that can run keeps no checkup either
    (the cell would raise the same error), nor does a GPU kernel's (the TPU interpreter's
    checks are not the GPU's)."""
    runnable = [fix for fix in diagnosis.fixes if fix.unavailable is None]
    if (not diagnosis.concerns_kernel or diagnosis.code in CODES.values() or not runnable
            or any(fix.kind == "check" or _runs_a_gpu_kernel(fix) for fix in diagnosis.fixes)
            or not available()[0]):
        return diagnosis
    shell = session.running_shell()
    number = running_cell(shell) if shell is not None else 0
    source = typed_source(shell, number) if number > 0 else None
    if not source or not source.strip():
        return diagnosis
    # the checkup runs the cell five times interpreted: five times the kernel's estimate,
    # said before a long one starts (the card's "Long:" line and its bar)
    once = next((other.estimate for other in diagnosis.fixes if other.estimate is not None
                 and other.estimate.mode == "tpu"), None)
    estimate = (dataclasses.replace(once, steps=once.steps * RUNS, seconds=once.seconds * RUNS,
                                    counted=False) if once is not None else None)
    fix = Fix(label=CHECK_LABEL, summary=CHECK_SUMMARY, safety=CHECK_SAFETY, safe=True,
              kind="check", estimate=estimate,
              runs=(CellRun(label=cell_label(number), source=source, cell=number,
                            why="the kernel checkup, five runs"),),
              runtime_description=(f"The kernel checkup (%%jax_nbhelp check) of "
                                   f"{cell_label(number)} as it stands: five runs in JAX's "
                                   "TPU interpreter, the last one kept."),
              runner=functools.partial(_run_check, diagnosis))
    return dataclasses.replace(diagnosis, fixes=(*diagnosis.fixes, fix))


def _runs_a_gpu_kernel(fix: Fix) -> bool:
    """A fix that runs a GPU kernel (its interpreter, its set-up line)."""
    said = f"{fix.label} {fix.setup_line or ''} {fix.runtime_description}".lower()
    return "gpu" in said or (fix.estimate is not None and fix.estimate.mode == "gpu")


def _last_fix(diagnosis: Diagnosis, session: Session) -> Fix | None:
    """The card's fix that ran last, where it ran without error."""
    result = session.last_result
    if result is None or not result.ok or result.checked is not None:
        return None
    return next((other for other in diagnosis.fixes
                 if other.label == result.fix_label and other.kind != "check"), None)


def _checked_source(diagnosis: Diagnosis, fix: Fix, session: Session) -> str:
    """The cell as it stands: as the card's fix that last ran without error left it, else
    as the user typed it."""
    run = fix.runs[0]
    ran = _last_fix(diagnosis, session)
    for other in ran.runs if ran is not None else ():
        if other.cell == run.cell:
            return other.cell_source if other.cell_source is not None else other.source
    return run.source


def _run_check(diagnosis: Diagnosis, fix: Fix, progress: Progress | None,
               session: object) -> FixResult:
    """The checkup as a card's button runs it: its answer as a fix's result, remembered as
    the last result (a finding's card is the last diagnosis, so `fix N` is its fixes)."""
    held = session if isinstance(session, Session) else current()
    return _remember(held, _checkup_result(diagnosis, fix, held, progress))


def _checkup_result(diagnosis: Diagnosis, fix: Fix, held: Session,
                    progress: Progress | None) -> FixResult:
    shell = held.running_shell()
    if shell is None:
        return FixResult(ok=False, fix_label=fix.label, checked="",
                         error="Cannot apply: the checkup runs a cell and needs a running "
                               "IPython shell.")
    source = _checked_source(diagnosis, fix, held)
    start = time.perf_counter()
    # a runtime fix (a mode, the cell run as one program) stays around its code's checkup
    ran = _last_fix(diagnosis, held)
    mode = ran.runtime() if ran is not None and ran.runtime is not None else (
        contextlib.nullcontext())
    try:
        with mode:
            checkup = check(shell, source, held, cell=fix.runs[0].cell, report=_bar(progress))
    except KeyboardInterrupt:
        return _stopped(fix, start, STOPPED)
    except Exception as exc:
        found = _diagnosed(exc, shell, held)
        kept = held.last_checkup
        finding = next(iter(kept.findings), None) if kept is not None else None
        return FixResult(
            ok=False, fix_label=fix.label, seconds=time.perf_counter() - start,
            # a read past the end is the checkup's finding, and the error's card says it
            error=None if finding is not None else f"{type(exc).__name__}: {exc}",
            diagnosis=found,
            checked=(f"{finding.kernel} reads past the end of a buffer: {finding.message}."
                     if finding is not None else
                     f"the cell raised {type(exc).__name__} before the checkup finished."))
    seconds = time.perf_counter() - start
    if checkup.stopped:
        return FixResult(ok=False, fix_label=fix.label, stopped=True, seconds=seconds,
                         checked=checkup_said(checkup), error=STOPPED)
    if checkup.findings:
        first = checkup.findings[0]
        return FixResult(ok=False, fix_label=fix.label, seconds=seconds, source=source,
                         diagnosis=finding_card(first, shell, source, fix.runs[0].cell, held),
                         checked=as_diagnosis(first).explanation.split(". ")[0] + ".")
    return FixResult(ok=bool(checkup.kernels) and not checkup.not_run, fix_label=fix.label,
                     seconds=seconds, source=source,
                     checked=checkup_said(checkup).removeprefix("nothing checked: "))


def _stopped(fix: Fix, start: float, text: str) -> FixResult:
    return FixResult(ok=False, fix_label=fix.label, stopped=True,
                     seconds=time.perf_counter() - start, error=text)


def _diagnosed(error: BaseException, shell: Any, held: Session) -> Diagnosis | None:
    """The card of an error the checked cell raised, as the hook would make it."""
    from jax_nbhelp.diagnosis.engine import diagnose

    with contextlib.suppress(Exception):
        return diagnose(error, shell, held)
    return None


def _bar(progress: Progress | None) -> Any:
    """The checkup's runs as a card's progress bar: one step a run."""
    if progress is None:
        return None

    def report(done: int, total: int, text: str, seconds: float) -> None:
        progress(FixProgress(seconds=seconds, steps=None, total=None, fraction=done / total,
                             text=text))
    return report


def finding_card(finding: Finding, shell: Any, checked: str, checked_cell: int | None,
                 session: Session) -> Diagnosis:
    """A finding's card, with its mechanical fix where there is one."""
    fixes: tuple[Fix, ...] = ()
    with contextlib.suppress(Exception):  # a fix that cannot be built is not offered
        fixes = finding_fixes(finding, shell, checked, checked_cell, session)
    return as_diagnosis(finding, fixes)


def _remember(held: Session, result: FixResult) -> FixResult:
    """The result as the last one (a finding's card the last diagnosis, so that `fix N`
    means its fixes), as every fix's run leaves it."""
    held.last_result = result
    if result.diagnosis is not None:
        held.last = result.diagnosis
    return result


def finding_fixes(finding: Finding, shell: Any, checked: str, checked_cell: int | None,
                  session: Session) -> tuple[Fix, ...]:
    """The mechanical fix of ``finding``, where there is one: ``checked`` is the source of
    the cell the checkup ran (In [``checked_cell``]), which the fix checks again."""
    location = finding.location
    if shell is None or location is None or location.kind != "cell" or location.cell is None:
        return ()
    typed = typed_source(shell, location.cell) or location.source
    if not typed:
        return ()
    # a cell magic's line (`%%jax_nbhelp check` itself) stays in the cell, blank where it
    # runs; the doctor's `%%jax_nbhelp check auto` runs the rest at its own lines
    header, _, rest = typed.partition("\n") if typed.startswith("%%") else ("", "", typed)
    own_lines = bool(header) and (location.source or "").rstrip("\n") == rest.rstrip("\n")
    source = rest if own_lines else "\n" + rest if header else typed
    prefix = header + "\n" if own_lines else header
    try:
        tree = ast.parse(source)
    except SyntaxError:  # line magics: no rewrite here
        return ()
    rewritten: str | None = None
    if finding.kind == "order":
        rewritten, label = _arbitrary(source, tree, location.lineno), "Mark it \"arbitrary\""
        summary = "marks the kernel's parallel grid dimensions \"arbitrary\", run in order"
    elif finding.kind == "uninitialized":
        rewritten, label = _initialised(source, tree, location.lineno, shell), "Initialise it"
        summary = "writes zeros into the accumulator before the kernel's first step"
    if rewritten is None or rewritten == source:
        return ()
    cell = location.cell
    name = cell_label(cell)
    runs = [CellRun(label=name, source=rewritten, cell=cell, rewritten=True,
                    cell_source=rewritten, why=f"rewritten: {finding.kernel}")]
    if checked_cell != cell:
        runs.append(CellRun(label=cell_label(checked_cell) if checked_cell else "the cell",
                            source=checked, cell=checked_cell,
                            why="checked again: the kernel checkup, five runs"))
    edited = prefix + rewritten
    return (Fix(label=label, summary=summary, safety=SAFETY[finding.kind], safe=True,
                runs=tuple(runs), diff=unified_diff(typed, edited, name),
                edits=(CellEdit(label=name, cell=cell, original=typed, source=edited),),
                runner=_recheck),)


def _arbitrary(source: str, tree: ast.AST, lineno: int) -> str | None:
    """``source`` with the "parallel" dimensions of the call at ``lineno`` "arbitrary"."""
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
             and node.lineno <= lineno <= (node.end_lineno or node.lineno)]
    for call in sorted(calls, key=lambda node: node.lineno, reverse=True):
        marked: list[ast.expr] = [
            constant for node in ast.walk(call)
            if isinstance(node, ast.keyword) and node.arg == "dimension_semantics"
            for constant in ast.walk(node.value)
            if isinstance(constant, ast.Constant) and constant.value == "parallel"]
        if marked:
            return _replace(source, [(constant, '"arbitrary"') for constant in marked])
    return None


def _replace(source: str, spans: list[tuple[ast.expr, str]]) -> str:
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line.encode()))
    data = source.encode()
    for node, text in sorted(spans, key=lambda span: (span[0].lineno, span[0].col_offset),
                             reverse=True):
        start = offsets[node.lineno - 1] + node.col_offset
        end = offsets[(node.end_lineno or node.lineno) - 1] + (node.end_col_offset or 0)
        data = data[:start] + text.encode() + data[end:]
    return data.decode()


def _initialised(source: str, tree: ast.AST, lineno: int, shell: Any) -> str | None:
    """``source`` with the kernel around ``lineno`` writing zeros into the ref it
    accumulates into (``o_ref[...] += x``, ``acc[...] = acc[...] + x``) before anything."""
    kernels = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
               and node.lineno <= lineno <= (node.end_lineno or node.lineno)]
    if not kernels:
        return None
    kernel = max(kernels, key=lambda node: node.lineno)
    ref = _accumulated(kernel, lineno)
    pl = module_alias(shell, "jax.experimental.pallas")
    jnp = module_alias(shell, "jax.numpy")
    if ref is None or pl is None or jnp is None:
        return None
    axis = _last_grid_axis(tree, kernel.name)
    first = kernel.body[0]
    indent = " " * first.col_offset
    zero = f"{ref}[...] = {jnp}.zeros({ref}.shape, {ref}.dtype)\n"
    if axis is None:  # no grid: one run, which writes it first
        added = indent + zero
    else:
        added = (f"{indent}@{pl}.when({pl}.program_id({axis}) == 0)\n"
                 f"{indent}def _init_{ref}():\n{indent}    {zero}")
    lines = source.splitlines(keepends=True)
    at = first.lineno - 1
    if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):  # after the docstring
        at = first.end_lineno or first.lineno
        if len(kernel.body) == 1:
            return None
    at = min([at, *(d.lineno - 1 for d in getattr(kernel.body[0], "decorator_list", []))])
    return "".join([*lines[:at], added, *lines[at:]])


def _accumulated(kernel: ast.FunctionDef, lineno: int) -> str | None:
    """The ref the line at ``lineno`` reads before writing: ``o_ref`` of ``o_ref[...] +=``."""
    return next((name for node in ast.walk(kernel) if getattr(node, "lineno", None) == lineno
                 and (name := accumulated_ref(node)) is not None), None)


def _last_grid_axis(tree: ast.AST, kernel: str) -> int | None:
    """The last axis of the grid the kernel runs on: its ``pallas_call``'s ``grid=`` (a
    tuple written out, or a number); 0 where the grid is not written out; None: no grid."""
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and call.args and isinstance(call.args[0], ast.Name)
                and call.args[0].id == kernel):
            continue
        grid = next((k.value for k in call.keywords if k.arg == "grid"), None)
        if grid is None:
            return None if not any(k.arg == "grid_spec" for k in call.keywords) else 0
        if isinstance(grid, ast.Tuple):
            return len(grid.elts) - 1 if grid.elts else None
        return 0
    return 0


def _recheck(fix: Fix, progress: Progress | None, session: object) -> FixResult:
    """Run the rewritten cell, then check the checked cell again: fixed only if clean."""
    held = session if isinstance(session, Session) else current()
    return _remember(held, _rechecked(fix, held, progress))


def _rechecked(fix: Fix, held: Session, progress: Progress | None) -> FixResult:
    shell = held.running_shell()
    start = time.perf_counter()
    if shell is None:
        return FixResult(ok=False, fix_label=fix.label,
                         error="Cannot apply: fixes re-run cells and need a running shell.")
    before = dict(shell.user_ns)
    rewritten, *checked = fix.runs
    try:
        if checked:  # the kernel's own cell first, as rewritten; then the checkup of the other
            filename = str(shell.compile.cache(rewritten.source, rewritten.cell or 0))
            held.reruns[filename] = RerunSource(cell=rewritten.cell, source=rewritten.source)
            exec(compile(shell.transform_cell(rewritten.source), filename, "exec"),
                 shell.user_ns)
        target = checked[0] if checked else rewritten
        checkup = check(shell, target.source, held, cell=target.cell, report=_bar(progress))
        if checkup.stopped:
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        shell.user_ns.clear()
        shell.user_ns.update(before)
        return _stopped(fix, start, "Stopped: the namespace is as it was before the fix.")
    except Exception as exc:
        found = _diagnosed(exc, shell, held)
        shell.user_ns.clear()
        shell.user_ns.update(before)
        return FixResult(ok=False, fix_label=fix.label, seconds=time.perf_counter() - start,
                         error=f"{type(exc).__name__}: {exc}", diagnosis=found,
                         restored=("the namespace",))
    seconds = time.perf_counter() - start
    if checkup.findings:
        again = as_diagnosis(checkup.findings[0])
        return FixResult(ok=False, fix_label=fix.label, seconds=seconds,
                         error=("The kernel checkup still finds: "
                                + again.explanation.split(". ")[0] + "."),
                         diagnosis=again)
    print(clean_line(checkup))
    return FixResult(ok=True, fix_label=fix.label, seconds=seconds,
                     source=target.source, executed=tuple(run.source for run in fix.runs))
