"""The command line: ``jax_nbhelp doctor NOTEBOOK.ipynb [...]`` (also ``python -m
jax_nbhelp doctor``)."""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import sys
import threading
from pathlib import Path
from typing import Any, TextIO

USAGE_EXIT = 2
INTERRUPTED_EXIT = 130  # as a shell reports Ctrl-C
_GLOB = frozenset("*?[")


class BadInput(Exception):
    """Input the doctor cannot work on; its message is the one line the user sees."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jax_nbhelp",
        description="Explain and fix JAX and Pallas errors in notebooks.")
    commands = parser.add_subparsers(dest="command", required=True)
    doctor = commands.add_parser(
        "doctor", help="run notebooks headless; report (and with --fix, repair) what breaks",
        description="Run each notebook top to bottom in a fresh kernel with jax_nbhelp "
                    "loaded, print the diagnosis of each failing cell, and report.")
    doctor.add_argument("notebooks", nargs="+", metavar="PATH",
                        help="notebooks, folders (every .ipynb under them) or globs "
                             "(quoted: 'course/**/*.ipynb')")
    doctor.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                        help="run N notebooks at once, each in its own kernel (1)")
    doctor.add_argument("--fix", action="store_true",
                        help="apply each failing cell's recommended fix when it is marked "
                             "safe (verified by running), then go on")
    written = doctor.add_mutually_exclusive_group()
    written.add_argument("--write", type=Path, metavar="OUT.ipynb",
                         help="write the repaired notebook here (one notebook only)")
    written.add_argument("--in-place", action="store_true",
                         help="write each repaired notebook over its input, keeping a .bak")
    doctor.add_argument("--kernel", help="the kernelspec to run (default: the notebook's own)")
    doctor.add_argument("--timeout", type=float, default=600.0, metavar="S",
                        help="seconds a cell may run before it is interrupted (600)")
    doctor.add_argument("--keep-going", action="store_true",
                        help="run the cells after a failure that remains")
    doctor.add_argument("--report", type=Path, metavar="FILE",
                        help="write the report here instead of to stdout")
    doctor.add_argument("--json", action="store_true", help="the report as JSON")
    doctor.add_argument("--check-kernels", action="store_true",
                        help="run each cell that builds a Pallas TPU kernel under the kernel "
                             "checkup (%%%%jax_nbhelp check): races, uninitialized and "
                             "out-of-bounds reads, order dependence are failures")
    doctor.add_argument("--quiet", action="store_true",
                        help="no progress lines and no diagnoses on stderr")
    return parser


def notebook_paths(specs: list[str]) -> tuple[list[Path], list[str]]:
    """The notebooks that files, folders and globs name, each once, in the order given (a
    folder's and a glob's sorted); and a line for each that names none."""
    found: list[Path] = []
    problems: list[str] = []
    for spec in specs:
        path = Path(spec)
        if path.is_dir():
            paths = sorted(p for p in path.rglob("*.ipynb") if _visible(p.relative_to(path)))
            if not paths:
                problems.append(f"{spec}: no notebooks (.ipynb) in this folder")
        elif not path.exists() and _GLOB.intersection(spec):
            paths = sorted(Path(p) for p in glob.glob(spec, recursive=True)
                           if p.endswith(".ipynb") and _visible(Path(p)))
            if not paths:
                problems.append(f"{spec}: no notebooks match")
        else:
            paths = [path]  # read it, and say why when it is not a notebook
        for one in paths:
            if one.resolve() not in {known.resolve() for known in found}:
                found.append(one)
    return found, problems


def _visible(path: Path) -> bool:
    """Not a checkpoint or a hidden folder's copy (``.ipynb_checkpoints``, ``.venv``)."""
    return not any(part.startswith(".") and part not in (".", "..") for part in path.parts)


def read_notebook(path: Path) -> Any:
    import nbformat

    try:
        text = path.read_text(encoding="utf-8")
    except IsADirectoryError:
        raise BadInput(f"{path}: a folder, with no notebooks") from None
    except OSError as exc:
        raise BadInput(f"{path}: cannot read it ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise BadInput(f"{path}: not a notebook (not UTF-8 text)") from None
    try:
        notebook = nbformat.reads(text, as_version=4)  # type: ignore[no-untyped-call]
    except Exception as exc:  # nbformat raises several kinds for what is not a notebook
        raise BadInput(f"{path}: not a notebook ({type(exc).__name__})") from None
    if not isinstance(getattr(notebook, "cells", None), list):
        raise BadInput(f"{path}: not a notebook (no cells)")
    return notebook


def write_notebook(notebook: Any, path: Path) -> None:
    import nbformat

    nbformat.write(notebook, str(path))  # type: ignore[no-untyped-call]


_BAR = 20  # characters


class _Progress:
    """A progress line per cell on stderr; on a terminal, one line rewritten in place with
    a bar of the cells done, and a running fix's reports in it (those are left out of a
    log, which gets one line per cell)."""

    def __init__(self, stream: TextIO, quiet: bool) -> None:
        self.stream = stream
        self.quiet = quiet
        self.tty = stream.isatty()
        self._open = False

    def step(self, text: str, done: float | None = None, transient: bool = False) -> None:
        """``done``: the share of cells run, for the bar; ``transient``: a report that a
        terminal shows in place and a log does without."""
        if self.quiet:
            return
        if self.tty:
            bar = ""
            if done is not None:
                filled = round(max(0.0, min(1.0, done)) * _BAR)
                bar = "[" + "#" * filled + "." * (_BAR - filled) + "] "
            self.stream.write(f"\r\x1b[K{bar}{text}")
            self._open = True
        elif not transient:
            self.stream.write(text + "\n")
        self.stream.flush()

    def say(self, text: str) -> None:
        if self.quiet:
            return
        if self._open:
            self.stream.write("\n")
            self._open = False
        self.stream.write(text.rstrip() + "\n")
        self.stream.flush()

    def done(self) -> None:
        if self._open and not self.quiet:
            self.stream.write("\n")
            self._open = False


def doctor(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from jax_nbhelp.doctor.checkup import NotebookReport, Options
    from jax_nbhelp.doctor.report import as_json, markdown, workflow_commands

    if args.timeout <= 0:
        raise BadInput("--timeout must be a positive number of seconds")
    if args.jobs < 1:
        raise BadInput("-j takes a number of notebooks at once, 1 or more")
    paths, problems = notebook_paths(args.notebooks)
    if args.write is not None and len(paths) + len(problems) != 1:
        raise BadInput("--write takes one notebook; use --in-place for several")
    bad: list[NotebookReport] = []
    notebooks: list[tuple[Path, Any]] = []
    for path in paths:
        try:
            notebooks.append((path, read_notebook(path)))
        except BadInput as exc:
            problems.append(str(exc))
            bad.append(NotebookReport(str(path), error=str(exc).split(": ", 1)[-1]))
    for problem in problems:
        err.write(f"jax_nbhelp doctor: {problem}\n")
    options = Options(kernel=args.kernel, fix=args.fix, timeout=args.timeout,
                      keep_going=args.keep_going, check_kernels=args.check_kernels)
    runner = _Runner(args, options, err)
    try:
        reports = runner.run(notebooks)
    except KeyboardInterrupt:
        runner.progress.done()
        err.write("jax_nbhelp doctor: interrupted (Ctrl-C); nothing written for the "
                  "notebooks not finished\n")
        reports = runner.finished()
        code = INTERRUPTED_EXIT
    else:
        code = max([report.exit for report in reports + bad]
                   + [USAGE_EXIT if problems else 0])
    reports += bad
    text = as_json(reports) if args.json else markdown(reports)
    if args.report is not None:
        args.report.write_text(text, encoding="utf-8")
    else:
        out.write(text)
    if os.environ.get("GITHUB_ACTIONS") == "true":
        out.write(workflow_commands(reports))
    return code


class _Runner:
    """Checks notebooks one after another, or ``-j N`` at once (a kernel each). Several at
    once print each notebook's lines together when it ends, not interleaved."""

    def __init__(self, args: argparse.Namespace, options: Any, err: TextIO) -> None:
        self.args = args
        self.options = options
        self.err = err
        self.progress = _Progress(err, args.quiet)
        self._lock = threading.Lock()
        self._done: dict[int, Any] = {}
        self._running: set[Any] = set()  # the checkups under way, to stop on Ctrl-C
        self._stopping = False

    def run(self, notebooks: list[tuple[Path, Any]]) -> list[Any]:
        if self.args.jobs == 1 or len(notebooks) < 2:
            for number, (path, notebook) in enumerate(notebooks):
                self._done[number] = self._check(path, notebook, self.progress)
            return self.finished()
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=self.args.jobs) as pool:
            futures = [pool.submit(self._one_of_many, number, path, notebook)
                       for number, (path, notebook) in enumerate(notebooks)]
            try:
                for future in futures:
                    future.result()
            except KeyboardInterrupt:
                self._stop(futures)
                raise
        return self.finished()

    def _stop(self, futures: list[Any]) -> None:
        """Ctrl-C with several at once: no new notebook starts, and the running ones' kernels
        are shut down, so that their threads end now."""
        self._stopping = True
        for future in futures:
            future.cancel()
        with self._lock:
            running = list(self._running)
        for checkup in running:
            checkup.stop()

    def finished(self) -> list[Any]:
        return [self._done[number] for number in sorted(self._done)]

    def _one_of_many(self, number: int, path: Path, notebook: Any) -> None:
        import io

        buffer = io.StringIO()
        progress = _Progress(buffer, self.args.quiet)
        report = self._check(path, notebook, progress)
        with self._lock:
            self.err.write(buffer.getvalue())
            self.err.flush()
            self._done[number] = report

    def _check(self, path: Path, notebook: Any, progress: _Progress) -> Any:
        from jax_nbhelp.doctor.checkup import Checkup, NotebookReport
        from jax_nbhelp.doctor.kernel import KernelGone, NoSuchKernel

        progress.say(f"jax_nbhelp doctor: {path}")
        checkup = Checkup(path, notebook, self.options, progress.step, progress.say)
        with self._lock:
            self._running.add(checkup)
        try:
            report: NotebookReport = checkup.run()
        except (KernelGone, NoSuchKernel) as exc:
            progress.done()
            if self._stopping:
                raise KeyboardInterrupt from None  # stopped by Ctrl-C: not a finished one
            with self._lock:
                self.err.write(f"jax_nbhelp doctor: {path}: {exc}\n")
            checkup.report.error = str(exc)
            return checkup.report  # nothing written: its run did not end
        finally:
            with self._lock:
                self._running.discard(checkup)
        progress.done()
        if self.args.write is not None:
            write_notebook(notebook, self.args.write)
        elif self.args.in_place:
            shutil.copy2(path, path.with_name(path.name + ".bak"))
            write_notebook(notebook, path)
        return report


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    if not (sys.argv[1:] if argv is None else argv):
        # alone: what it does and how to use it, on stderr, with the usage error's code
        parser.print_help(sys.stderr)
        print("\nIn a notebook: %load_ext jax_nbhelp (a card for each JAX error). Headless: "
              "jax_nbhelp doctor NOTEBOOK.ipynb [--fix --write OUT.ipynb].", file=sys.stderr)
        return USAGE_EXIT
    args = parser.parse_args(argv)
    try:
        return doctor(args, sys.stdout, sys.stderr)
    except BadInput as exc:
        print(f"jax_nbhelp doctor: {exc}", file=sys.stderr)
        return USAGE_EXIT
    except ImportError as exc:  # a broken install: these are jax_nbhelp's dependencies
        print(f"jax_nbhelp doctor: needs {exc.name or 'a package'} "
              "(pip install jax_nbhelp installs it; this environment lacks it)",
              file=sys.stderr)
        return USAGE_EXIT
