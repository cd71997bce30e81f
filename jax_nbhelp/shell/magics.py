"""``%jax_nbhelp``: show the last diagnosis, preview or apply its fixes, list the catalog."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jax_nbhelp.core.model import FixProgress
from jax_nbhelp.core.session import current, running_cell

MAGIC_NAME = "jax_nbhelp"

USAGE = """\
%jax_nbhelp            show the last diagnosis
%jax_nbhelp details    the last diagnosis in full: why, every note, each fix with its safety
%jax_nbhelp traceback  the last error's whole traceback, JAX's frames included
%%jax_nbhelp check     run the cell's Pallas TPU kernels in the TPU interpreter with its
                       checks: races, uninitialized and out-of-bounds reads, order
                       dependence (%jax_nbhelp check: the cell run before this one)
%jax_nbhelp fix N      apply fix N of the last diagnosis and report the outcome
%jax_nbhelp preview N  show exactly what fix N will run
%jax_nbhelp list       the catalog of errors jax_nbhelp knows
%jax_nbhelp last       the outcome of the last fix
%jax_nbhelp interpret  which interpreter each kind of kernel gets now ("from now on")
%jax_nbhelp interpret off   turn it off: kernels built from then on compile as written
%jax_nbhelp interpret on    interpret every kernel built from now on, each in the
                            interpreter of its family (TPU, Triton-style, Mosaic GPU)
%jax_nbhelp interpret tpu   the same, with plain grid kernels in TPU interpret mode (also
                            gpu, hlo): the set-up line `jax_nbhelp doctor --write` keeps
%jax_nbhelp hints      classroom mode: show the cause, the place and why; keep fixes back
%jax_nbhelp fixes      show fixes again (and the last diagnosis with its fixes)"""


def _fixes_hidden(command: str) -> bool:
    if current().show_fixes:
        return False
    print(f"jax_nbhelp: classroom mode keeps the fixes back. Try the change yourself, or run "
          f"`%jax_nbhelp fixes` to show them, then `%jax_nbhelp {command} N`.")
    return True


def _interpret(args: list[str]) -> None:
    from jax_nbhelp.jaxapi import interpret_modes

    if args == ["off"]:
        if interpret_modes.switch_off() is None:
            print("jax_nbhelp: no interpret mode was on.")
        else:
            print("jax_nbhelp: interpret mode is off. Kernels built "
                  "from now on compile as written; kernels built while it was on stay "
                  "interpreted until their cells run again.")
        return
    if len(args) == 1 and args[0] in ("on", "tpu", "gpu", "hlo"):
        # "on": plain grid kernels in TPU interpret mode, which checks the most
        chosen: interpret_modes.Mode = "tpu" if args[0] == "on" else args[0]  # type: ignore[assignment]
        reason = (interpret_modes.params_unavailable(chosen)
                  or interpret_modes.switch_unavailable())
        if reason is not None:
            print(f"jax_nbhelp: cannot turn it on: {reason}.")
            return
        with interpret_modes.interpret_switch_from_now_on(chosen):
            pass
        print(interpret_modes.session_note())
        return
    if args:
        print("jax_nbhelp: `%jax_nbhelp interpret` shows the mode; `%jax_nbhelp interpret off` "
              "turns it off; `%jax_nbhelp interpret on` (or tpu, gpu, hlo) turns it on. A fix "
              "(\"Interpret mode from now on\") turns it on too.")
        return
    print(interpret_modes.session_note() or "jax_nbhelp: no interpret mode is on for this "
          "kernel; kernels compile as written.")


def _classroom(show_fixes: bool) -> None:
    current().show_fixes = show_fixes
    if not show_fixes:
        print("jax_nbhelp: classroom mode. A diagnosis shows the cause, the place and why; "
              "its fixes stay hidden until `%jax_nbhelp fixes`.")
        return
    print("jax_nbhelp: fixes are shown.")
    last = current().last
    if last is not None and last.fixes:
        from jax_nbhelp.show.display import show

        show(last)


# When a long fix says it is still running in a terminal: a few times early, then once a
# minute. In a notebook a live bar replaces it (show/progress_bar.py).
_REPORT_AT = (10, 30, 60)


def _progress_printer(fix: Any, number: int) -> Callable[[FixProgress], None]:
    """Reports a running fix (called from another thread): a bar updated in place where
    the shell has a frontend, else a line now and then."""
    from jax_nbhelp.show.progress_bar import LiveBar, has_frontend

    if has_frontend():
        return LiveBar(number, fix.label)
    said: list[int] = []

    def report(now: FixProgress) -> None:
        due = [mark for mark in _REPORT_AT if now.seconds >= mark and mark not in said]
        minute = int(now.seconds // 60) * 60
        if minute > _REPORT_AT[-1] and minute not in said:
            due.append(minute)
        if due:
            said.extend(due)
            print(f"jax_nbhelp: fix still running, {now.text}; interrupt the kernel to stop "
                  "only the fix.", flush=True)

    return report


def _fix_number(args: list[str]) -> int | None:
    diagnosis = current().last
    if diagnosis is None:
        print("jax_nbhelp: no diagnosis yet. Run a cell that fails with a JAX error first.")
        return None
    if len(args) != 2 or not args[1].isdigit():
        print(f"jax_nbhelp: say which fix, e.g. `%jax_nbhelp {args[0]} 1`.")
        return None
    number = int(args[1])
    if not 1 <= number <= len(diagnosis.fixes):
        count = len(diagnosis.fixes)
        print(f"jax_nbhelp: [{diagnosis.code}] has {count} fix{'es' if count != 1 else ''}; "
              f"there is no fix {number}.")
        return None
    return number


def _apply(args: list[str]) -> None:
    number = _fix_number(args)
    session = current()
    if number is None or session.last is None:
        return
    diagnosis = session.last
    fix = diagnosis.fixes[number - 1]
    print(f"jax_nbhelp: applying fix {number}, {fix.label!r} ..." if fix.kind != "check"
          else f"jax_nbhelp: {fix.label.lower()} ({number}) ...")
    if fix.estimate is not None and fix.estimate.long:
        from jax_nbhelp.jaxapi.interpret_cost import sentence

        print(f"jax_nbhelp: {sentence(fix.estimate)} Interrupt the kernel (stop button, or "
              "Ctrl-C) to stop only the fix.")
    reporter = _progress_printer(fix, number)
    result = fix.apply(progress=reporter, session=session)
    finish = getattr(reporter, "finish", None)
    if finish is not None:
        finish(result)
    print(result)
    if result.ok and fix.kind != "check":
        from jax_nbhelp.show.view import check_number, outcome_view

        check_line = outcome_view(fix, result, check=check_number(diagnosis)).check_line
        if check_line:
            print(f"jax_nbhelp: {check_line[0].lower()}{check_line[1:]}")
    if result.ok:
        from jax_nbhelp.core.session import edits_to_copy

        for edit in edits_to_copy(fix):
            print(f"\nThe fixed source of {edit.label} (your cell is unchanged; paste this "
                  f"into it to keep the fix):\n\n{edit.source}\n")
    if result.ok and result.value is not None:
        from IPython.display import display

        display(result.value)
    if not result.ok and result.diagnosis is not None:
        from jax_nbhelp.show.display import show

        if result.traceback:
            print(result.traceback)
        show(result.diagnosis, session)
    elif not result.ok and result.traceback:
        print(result.traceback)


def _list() -> None:
    from jax_nbhelp.diagnosis.catalog_index import name_of
    from jax_nbhelp.diagnosis.engine import entries
    from jax_nbhelp.show.render_text import render_catalog

    print(render_catalog([(e.CODE, name_of(e), e.TITLE) for e in entries()]))


def jax_nbhelp_magic(line: str) -> None:
    args = line.split()
    command = args[0] if args else ""
    if command == "":
        from jax_nbhelp.jaxapi.interpret_modes import session_note
        from jax_nbhelp.show.display import presented

        last = current().last
        if last is not None:
            print(presented(last))
        else:
            print("jax_nbhelp: no diagnosis yet.\n" + USAGE)
            if session_note():
                print(f"\n{session_note()}")
    elif command == "details":
        from jax_nbhelp.show.display import presented
        from jax_nbhelp.show.render_text import render_diagnosis

        last = current().last
        print(render_diagnosis(presented(last), details=True) if last is not None
              else "jax_nbhelp: no diagnosis yet.\n" + USAGE)
    elif command == "check":
        shell = current().running_shell()
        history = shell.user_ns.get("In", []) if shell is not None else []
        if len(history) < 2 or not str(history[-2]).strip():
            print("jax_nbhelp: no cell to check yet; put %%jax_nbhelp check on a cell.")
        else:
            checkup_cell("check", str(history[-2]))
    elif command == "traceback":
        whole = current().last_traceback
        shell = current().running_shell()
        if whole is None or shell is None:
            print("jax_nbhelp: no folded traceback yet: the last error's traceback above is "
                  "IPython's whole one.")
        else:
            print(shell.InteractiveTB.stb2text(whole))
    elif command == "fix":
        if not _fixes_hidden(command):
            _apply(args)
    elif command == "preview":
        if _fixes_hidden(command):
            return
        number = _fix_number(args)
        last = current().last
        if number is not None and last is not None:
            from jax_nbhelp.show.view import preview

            print(preview(last.fixes[number - 1]))
    elif command == "list":
        _list()
    elif command == "interpret":
        _interpret(args[1:])
    elif command in ("hints", "fixes"):
        _classroom(show_fixes=command == "fixes")
    elif command == "last":
        print(current().last_result if current().last_result else "jax_nbhelp: no fix applied yet.")
    else:
        print(f"jax_nbhelp: unknown command {command!r}.\n{USAGE}")




def checkup_cell(line: str, cell: str) -> None:
    """``%%jax_nbhelp check``: the kernel checkup of this cell (shell/kernel_checkup.py)."""
    __tracebackhide__ = True  # an error of the cell shows the cell's frames
    words = line.split()
    if words[:1] != ["check"] or words[1:] not in ([], ["auto"]):
        print(f"jax_nbhelp: the cell magic knows `%%jax_nbhelp check`, not {line!r}.")
        return
    from jax_nbhelp.shell import kernel_checkup
    from jax_nbhelp.show.display import show

    session = current()
    shell = session.running_shell()
    auto = words[1:] == ["auto"]  # the doctor's --check-kernels: silent where no kernel ran
    checkup = kernel_checkup.check(shell, cell, session, auto=auto)
    if not checkup.findings:
        if checkup.kernels and not checkup.checks:
            return  # GPU kernels: the checkup said so before the cell ran
        if checkup.kernels or not auto:
            print(kernel_checkup.clean_line(checkup))
        return
    from jax_nbhelp.shell.checkup_actions import finding_card

    # the checked cell, as a fix checks it again: the magic's line blank, lines in place
    number = running_cell(shell)
    for finding in checkup.findings:
        diagnosis = finding_card(finding, shell, "\n" + cell, number, session)
        session.last = diagnosis
        show(diagnosis, session)
