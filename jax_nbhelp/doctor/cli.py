"""The command line: ``jax_nbhelp doctor NOTEBOOK.ipynb [...]`` (also ``python -m
jax_nbhelp doctor``)."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import Any, TextIO

USAGE_EXIT = 2


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
    doctor.add_argument("notebooks", nargs="+", type=Path, metavar="NOTEBOOK.ipynb")
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
    doctor.add_argument("--quiet", action="store_true",
                        help="no progress lines and no diagnoses on stderr")
    return parser


def _read(path: Path) -> Any:
    import nbformat

    try:
        text = path.read_text(encoding="utf-8")
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


def _write(notebook: Any, path: Path) -> None:
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
    from jax_nbhelp.doctor.checkup import Checkup, Options
    from jax_nbhelp.doctor.kernel import KernelGone, NoSuchKernel
    from jax_nbhelp.doctor.report import as_json, markdown

    if args.write is not None and len(args.notebooks) != 1:
        raise BadInput("--write takes one notebook; use --in-place for several")
    if args.timeout <= 0:
        raise BadInput("--timeout must be a positive number of seconds")
    notebooks = [(path, _read(path)) for path in args.notebooks]  # all readable, or none run
    options = Options(kernel=args.kernel, fix=args.fix, timeout=args.timeout,
                      keep_going=args.keep_going)
    progress = _Progress(err, args.quiet)
    reports = []
    for path, notebook in notebooks:
        progress.say(f"jax_nbhelp doctor: {path}")
        checkup = Checkup(path, notebook, options, progress.step, progress.say)
        try:
            report = checkup.run()
        except (KernelGone, NoSuchKernel) as exc:
            progress.done()
            raise BadInput(f"{path}: {exc}") from None
        progress.done()
        reports.append(report)
        if args.write is not None:
            _write(notebook, args.write)
        elif args.in_place:
            shutil.copy2(path, path.with_name(path.name + ".bak"))
            _write(notebook, path)
    text = as_json(reports) if args.json else markdown(reports)
    if args.report is not None:
        args.report.write_text(text, encoding="utf-8")
    else:
        out.write(text)
    return 0 if all(report.ok for report in reports) else 1


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return doctor(args, sys.stdout, sys.stderr)
    except BadInput as exc:
        print(f"jax_nbhelp doctor: {exc}", file=sys.stderr)
        return USAGE_EXIT
    except ImportError as exc:
        print(f"jax_nbhelp doctor: needs {exc.name or 'a package'} "
              "(pip install jupyter_client nbformat ipykernel)", file=sys.stderr)
        return USAGE_EXIT
