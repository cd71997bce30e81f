"""Executes a fix in the user's shell and reports what happened.

Code runs in the user's namespace, like the cell it replaces, but outside IPython's
run_cell: the re-run gets no new execution count, and its error comes back to jax_nbhelp
(diagnosed, so fixes chain) instead of stopping the cell that asked for the fix.
"""

from __future__ import annotations

import ast
import contextlib
import os
import time
import traceback
from types import TracebackType
from typing import Any

from jax_nbhelp.model import CellRun, Fix, FixResult
from jax_nbhelp.state import STATE, RerunSource, current_shell


def _compile_and_run(shell: Any, run: CellRun) -> Any:
    """Run ``run.source`` as IPython would run a cell; return the last expression's value."""
    transformed = shell.transform_cell(run.source)
    try:
        filename = shell.compile.cache(transformed, run.cell or 0, raw_code=run.source)
    except TypeError:  # IPython before 8 takes no raw_code
        filename = shell.compile.cache(transformed, run.cell or 0)
    # Errors raised from this code are located in the source the fix ran, not the old cell.
    STATE.reruns[filename] = RerunSource(cell=run.cell, source=run.source)
    tree = ast.parse(transformed, filename=filename)
    tree = shell.transform_ast(tree) or tree
    body = tree.body
    last_expr = body.pop() if body and isinstance(body[-1], ast.Expr) else None
    namespace_globals, namespace_locals = shell.user_global_ns, shell.user_ns
    flags = getattr(shell.compile, "flags", 0)
    if body:
        module = ast.Module(body=body, type_ignores=[])
        exec(compile(module, filename, "exec", flags, dont_inherit=True),
             namespace_globals, namespace_locals)
    if last_expr is None:
        return None
    expression = ast.Expression(body=last_expr.value)
    return eval(compile(expression, filename, "eval", flags, dont_inherit=True),
                namespace_globals, namespace_locals)


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


def apply_fix(fix: Fix) -> FixResult:
    """Run ``fix`` and remember the result as ``jax_nbhelp.last_result()``."""
    result = _apply(fix)
    STATE.last_result = result
    if result.diagnosis is not None:
        STATE.last = result.diagnosis
    return result


def _apply(fix: Fix) -> FixResult:
    if fix.unavailable:
        return FixResult(ok=False, fix_label=fix.label, error=f"Cannot apply: {fix.unavailable}")
    shell = current_shell()
    if shell is None:
        return FixResult(
            ok=False,
            fix_label=fix.label,
            error="Cannot apply: fixes re-run notebook cells and need a running IPython shell.",
        )
    if not fix.runs:
        return FixResult(ok=False, fix_label=fix.label, error="Cannot apply: nothing to run.")
    start = time.perf_counter()
    value: Any = None
    ran = fix.runs[-1]
    try:
        wrapper = fix.runtime() if fix.runtime is not None else contextlib.nullcontext()
        with wrapper:
            for run in fix.runs:
                ran = run
                value = _compile_and_run(shell, run)
    except Exception as exc:
        from jax_nbhelp.engine import diagnose

        try:
            diagnosis = diagnose(exc, shell)
        except Exception:
            diagnosis = None
        return FixResult(
            ok=False,
            fix_label=fix.label,
            error=f"{type(exc).__name__}: {exc}".splitlines()[0],
            diagnosis=diagnosis,
            source=ran.source,
            seconds=time.perf_counter() - start,
            traceback=_format_error(shell, exc),
        )
    edited = [run for run in fix.runs if run.changed]
    return FixResult(
        ok=True,
        fix_label=fix.label,
        source=(edited[0] if edited else fix.runs[-1]).source,
        seconds=time.perf_counter() - start,
        value=value,
    )
