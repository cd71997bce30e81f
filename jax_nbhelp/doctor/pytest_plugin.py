"""``pytest --nbhelp [PATH ...]``: every notebook under the paths is a test, run top to bottom
in a fresh kernel with jax_nbhelp loaded; a failure reports the cell, the error and
jax_nbhelp's diagnosis with its recommended fix.

Installed with jax_nbhelp (the ``pytest11`` entry point) and inert without ``--nbhelp``. It
follows nbmake's conventions: a notebook is one test named by its file; cells tagged
``raises-exception`` must raise; cells tagged ``skip-execution`` (or nbval's ``nbval-skip``,
or ``nbhelp-skip``) are not run; a notebook whose metadata holds ``"nbhelp": {"skip": true}``
(or a reason) is skipped. ``--nbhelp-fix`` runs each failure's safe fix to say whether it
works; only ``--nbhelp-write DIR`` ever writes a repaired notebook, and only into DIR.

Each notebook runs in its own kernel, so ``-n 2`` (pytest-xdist) runs two at once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

_AROUND = 2  # source lines shown on each side of the failing line


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("nbhelp", "notebooks checked by jax_nbhelp")
    group.addoption("--nbhelp", action="store_true",
                    help="collect *.ipynb files as tests: each runs in a fresh kernel with "
                         "jax_nbhelp loaded, and a failure carries its diagnosis")
    group.addoption("--nbhelp-kernel", metavar="NAME",
                    help="the kernelspec to run (default: each notebook's own)")
    group.addoption("--nbhelp-timeout", type=float, default=600.0, metavar="S",
                    help="seconds a cell may run before it is interrupted (600)")
    group.addoption("--nbhelp-check-kernels", action="store_true",
                    help="run each cell that builds a Pallas TPU kernel under jax_nbhelp's "
                         "kernel checkup; a finding fails the notebook")
    group.addoption("--nbhelp-fix", action="store_true",
                    help="run each failure's recommended safe fix, to report whether it works "
                         "(the notebook still fails: it is the notebook as written that runs)")
    group.addoption("--nbhelp-write", metavar="DIR", type=Path,
                    help="write each notebook that a fix repaired into DIR (with "
                         "--nbhelp-fix); notebooks are never written anywhere else")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix == ".ipynb" and parent.config.getoption("nbhelp"):
        return NotebookFile.from_parent(parent, path=file_path)
    return None


class NotebookFile(pytest.File):
    def collect(self) -> Any:
        yield NotebookItem.from_parent(self, name=self.path.name)


class NotebookFailed(Exception):
    """The notebook did not end right; its message is the report."""


class NotebookItem(pytest.Item):
    def runtest(self) -> None:
        from jax_nbhelp.doctor.checkup import Checkup, Options, skip_reason
        from jax_nbhelp.doctor.cli import BadInput, read_notebook
        from jax_nbhelp.doctor.kernel import KernelGone, NoSuchKernel

        try:
            notebook = read_notebook(self.path)
        except BadInput as exc:
            raise NotebookFailed(str(exc)) from None
        reason = skip_reason(notebook)
        if reason is not None:
            pytest.skip(reason)
        config = self.config
        options = Options(kernel=config.getoption("nbhelp_kernel"),
                          fix=config.getoption("nbhelp_fix"),
                          timeout=config.getoption("nbhelp_timeout"), keep_going=False,
                          check_kernels=config.getoption("nbhelp_check_kernels"))
        typed = [cell.source for cell in notebook.cells]  # a fix rewrites them in place
        checkup = Checkup(self.path, notebook, options, lambda *_: None, lambda _: None)
        try:
            report = checkup.run()
        except NoSuchKernel as exc:
            raise NotebookFailed(f"{self.path.name}: {exc}; --nbhelp-kernel NAME picks "
                                 "another") from None
        except KernelGone as exc:
            running = checkup.running
            where = ("" if running is None else
                     "\n" + _excerpt(typed[running - 1], None))
            raise NotebookFailed(f"{self.path.name}: {exc}{where}") from None
        written = self._write_repaired(notebook, report)
        if not report.ok or any(failure.fixed for failure in report.failures):
            raise NotebookFailed(failure_text(self.path.name, typed, report, written))

    def _write_repaired(self, notebook: Any, report: Any) -> Path | None:
        folder = self.config.getoption("nbhelp_write")
        if folder is None or not (report.changed or report.added):
            return None
        from jax_nbhelp.doctor.cli import write_notebook

        try:
            relative = self.path.resolve().relative_to(self.config.rootpath.resolve())
        except ValueError:
            relative = Path(self.path.name)
        target = Path(folder) / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        write_notebook(notebook, target)
        return target

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> Any:
        if isinstance(excinfo.value, NotebookFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"notebook {self.path.name}"


def failure_text(name: str, sources: list[str], report: Any, written: Path | None) -> str:
    """The failing cells with the lines around the error, the error, and the diagnosis."""
    parts = []
    for failure in report.failures:
        if failure.expected:
            continue
        where = f"{name}, cell {failure.index}" + (f", line {failure.line}"
                                                     if failure.line else "")
        code = f" [{failure.code}]" if failure.code else ""
        parts.append("\n".join([f"{where}: {failure.error}{code}",
                                _excerpt(sources[failure.index - 1], failure.line),
                                *_said(failure, written)]))
    if report.stopped:
        parts.append(report.stopped)
    if written is not None:
        parts.append(f"The repaired notebook is written to {written}.")
    return "\n\n".join(parts)


def _excerpt(source: str, line: int | None) -> str:
    lines = source.splitlines()
    if line is None or not 1 <= line <= len(lines):
        first, last = 1, min(len(lines), 2 * _AROUND + 1)
    else:
        first, last = max(1, line - _AROUND), min(len(lines), line + _AROUND)
    width = len(str(last))
    return "\n".join(f"{'->' if number == line else '  '} {number:>{width}} | "
                     f"{lines[number - 1]}" for number in range(first, last + 1))


def _said(failure: Any, written: Path | None) -> list[str]:
    lines = []
    if failure.knock_on:
        lines.append(f"knock-on: {failure.knock_on}")
    if failure.need:
        lines.append(f"The notebook {failure.need}.")
    if failure.text:
        lines.append(failure.text)
    elif failure.code is None and not failure.need and not failure.knock_on:
        lines.append("(not diagnosed by jax_nbhelp)")
    if failure.fixed:
        lines.append(f"Fix \"{failure.fix}\" works: verified by running it"
                     + ("." if written else " (--nbhelp-write DIR writes the repaired "
                                           "notebook)."))
    elif failure.fix:
        lines.append(f"Fix \"{failure.fix}\" did not work: {failure.why_not}")
    elif failure.recommended:
        lines.append(f"Recommended fix: \"{failure.recommended}\" (--nbhelp-fix runs it to "
                     "check that it works)")
    return lines
