"""The errors JAX's own test suite expects, and what jax_nbhelp makes of each.

JAX's tests check thousands of errors: every ``self.assertRaises``, ``assertRaisesRegex``,
``assertRaisesWithLiteralMatch`` (the callable and the ``with`` forms) and ``pytest.raises``
holds an exception that JAX raised for a program that is wrong on purpose. This runs JAX's
test files from a checkout of JAX's source at the tag of the installed release, in this
process under pytest, with a small plugin that hands each exception such a check caught to
``jax_nbhelp.diagnose`` before the check returns (its traceback intact; the test's own
frame is the "user's code", as a notebook cell would be), and classifies the diagnosis:

- an entry's card (a code of the catalog), the explained view (``JNH001``), the general
  view only (``JNH000``), or nothing;
- an engine failure: jax_nbhelp recorded an internal failure during the call (the
  session's ``failures``), or ``diagnose`` raised (it never reaches the test); this class
  comes first, so that the five add up to the errors handed;
- whether JAX raised the error (``diagnosis.provenance.raised_by_jax``, strictly): a test's
  own ``raise`` and NumPy's errors are not JAX's, and nothing is the right answer for them.

Tests are chosen by what they expect, not by name: a test function is run only when its
body calls one of the checks above (read from each file's syntax tree), and of a
parameterized test only its first ``--per-test`` cases in each test class (an
interpret-mode subclass runs its own). The files are ``api``, ``lax``,
``lax_numpy``, ``lax_numpy_indexing``, ``lax_control_flow``, ``random``, ``custom_api``,
``tree_util``, ``pjit`` and ``linalg`` (``tests/<name>_test.py``) and every
``tests/pallas/*_test.py`` (those that need a GPU or a TPU skip themselves, or fail to
import and are listed). Runs on the CPU, with 8 host devices (``--devices``); the tests
that skip for wanting another number (Pallas' TPU and GPU interpreter tests want one) are
run again with it in a process of their own. The test-only modules that
JAX's wheel leaves out (``jax/_src/hypothesis_test_util.py``, ``pallas_test_util.py``) are
imported from the checkout's ``jax/``; every other module is the installed release's. The
tests need ``hypothesis`` (and ``absl-py``); a file whose imports fail is listed, not run.

    python benchmarks/jax_test_errors.py JAX_SOURCE_DIR [--files api lax ...] [--per-test 3]
        [--json records.json] [--verbose] [--timeout-minutes M] [--devices 8]

``--files`` keeps the files whose name (``lax_numpy_test``, ``pallas/ops_test``) starts
with one of the prefixes given; ``--timeout-minutes`` stops starting tests after that long.

Per file and in total it prints: the tests run, the errors handed, those JAX raised, entry
cards, explained cards, general only, nothing, engine failures and the time a diagnosis
took (median and p99), over all errors and over those JAX raised; how many entry and
explained cards offer a fix, and how many a safe one (same results); then the distinct engine
failures, the 15 most frequent errors left with the general view or nothing (what to work
on next), the files that did not import, and how long the run took. ``--json`` writes every
record; ``--verbose`` prints one line per record as it comes. Asserts nothing.
"""

from __future__ import annotations

import argparse
import ast
import importlib.abc
import importlib.machinery
import inspect
import json
import math
import os
import re
import statistics
import sys
import time
import traceback
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

ROOT = Path(__file__).resolve().parent.parent

DEFAULT_FILES = ("api", "lax", "lax_numpy", "lax_numpy_indexing", "lax_control_flow",
                 "random", "custom_api", "tree_util", "pjit", "linalg")
CHECKS = frozenset({"assertRaises", "assertRaisesRegex", "assertRaisesWithLiteralMatch"})
GENERAL = "JNH000"
EXPLAINED = "JNH001"
DEVICES = [8]  # the CPU's host devices in this process (--devices)
KINDS = ("entry", "explained", "general", "nothing", "engine failure")
_HEADS = ("entry", "explained", "general", "nothing", "failures")  # the tables' columns
TOP = 15


@dataclass
class Record:
    file: str
    test: str
    exception: str
    message: str  # the first line
    jax_raised: bool
    kind: str  # one of KINDS
    code: str | None
    title: str | None
    explanation: str | None  # its first sentence
    ms: float
    failure: str | None
    fixes: int = 0  # fixes the card offers (a checkup is not one)
    safe_fix: bool = False  # one of them is marked safe (same results), verified when it runs
    fix: str | None = None  # the first one's label


# --- which tests expect an error ------------------------------------------------------


def _is_check(call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Attribute):
        if func.attr in CHECKS:
            return True
        return (func.attr == "raises" and isinstance(func.value, ast.Name)
                and func.value.id == "pytest")
    return isinstance(func, ast.Name) and func.id == "raises"  # from pytest import raises


def expecting_tests(path: Path) -> set[str]:
    """The qualified names (``ApiTest.testJitBadArgs``, ``test_foo``) of the test functions
    in ``path`` whose body calls an error check."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")
            elif (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                  and node.name.startswith("test")
                  and any(isinstance(sub, ast.Call) and _is_check(sub)
                          for sub in ast.walk(node))):
                found.add(prefix + node.name)

    visit(tree.body, "")
    return found


def test_files(tests: Path, prefixes: list[str]) -> list[Path]:
    """The default files (``--files`` narrows them by name prefix)."""
    paths = [tests / f"{name}_test.py" for name in DEFAULT_FILES]
    paths += sorted((tests / "pallas").glob("*_test.py"))
    paths = [path for path in paths if path.is_file()]
    if prefixes:
        def named(path: Path) -> bool:
            name = path.relative_to(tests).with_suffix("").as_posix()
            return any(name.startswith(p) or path.stem.startswith(p) for p in prefixes)

        paths = [path for path in paths if named(path)]
    return paths


def _function_key(item: Any, selected: set[str]) -> str | None:
    """The selected test function a collected item runs (absl's ``testFoo0``,
    ``testFoo_params`` and pytest's ``test_foo[...]`` all map back to their function)."""
    obj = getattr(item, "obj", None)
    if obj is not None:
        try:
            func = inspect.unwrap(obj)
        except ValueError:
            func = obj
        qualname = getattr(func, "__qualname__", None)
        if isinstance(qualname, str) and qualname in selected:
            return qualname
    cls = getattr(item, "cls", None)
    name = getattr(item, "originalname", None) or item.name.split("[", 1)[0]
    names = [n for n in selected if n.rsplit(".", 1)[-1] == name or (
        name.startswith(n.rsplit(".", 1)[-1])
        and name[len(n.rsplit(".", 1)[-1])] in "0123456789_")]
    if cls is not None:
        names = [n for n in names if "." not in n or any(
            n.rsplit(".", 1)[0] == base.__qualname__ for base in cls.__mro__)] or names
    return max(names, key=len) if names else None


# --- handing errors to jax_nbhelp ------------------------------------------------------


def _first_line(text: str, width: int = 240) -> str:
    lines = text.strip().splitlines()
    return lines[0][:width] if lines else ""


def _first_sentence(text: str | None) -> str | None:
    if not text:
        return None
    found = re.match(r"(.+?[.!?])(\s|$)", text.strip(), re.DOTALL)
    return " ".join((found.group(1) if found else text.strip()).split())[:300]


def _message(exc: BaseException) -> str:
    try:
        return _first_line(str(exc))
    except Exception:
        return "<str() raised>"


class Recorder:
    """The pytest plugin: keeps the first ``per_test`` cases of each selected test, hands
    each error a check caught to jax_nbhelp, and counts the tests that ran."""

    def __init__(self, selected: dict[str, set[str]], per_test: int,
                 deadline: float | None, verbose: TextIO | None,
                 only: set[str] | None = None) -> None:
        self.selected = selected  # file (relative to tests/) -> qualified test names
        self.per_test = per_test
        self.only = only  # exactly these node ids (a re-run with another device count)
        self.deadline = deadline
        self.verbose = verbose  # where to print each record (pytest captures sys.stdout)
        self.records: list[Record] = []
        self.ran: Counter[str] = Counter()  # file -> tests whose body ran
        self.outcomes: Counter[str] = Counter()
        self.kept: Counter[str] = Counter()  # file -> tests selected
        self.import_errors: dict[str, str] = {}
        self.finished = 0
        self.stopped = False  # by the time limit
        self.rerun_stopped = False
        # devices a skipped test asked for (other than this run's) -> its node ids
        self.device_skips: dict[int, list[str]] = defaultdict(list)
        self.reruns: Counter[int] = Counter()  # device count -> tests re-run with it
        self._test = ("", "")
        self._undo: list[Callable[[], None]] = []

    # pytest hooks

    def pytest_configure(self, config: Any) -> None:
        self._patch()

    def pytest_unconfigure(self, config: Any) -> None:
        while self._undo:
            self._undo.pop()()

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            text = str(report.longrepr).strip().splitlines()
            errors = [line for line in text if line.startswith("E ")]
            self.import_errors[report.nodeid] = (errors[-1][1:].strip() if errors
                                                 else (text[-1] if text else "?"))

    def pytest_collection_modifyitems(self, session: Any, config: Any,
                                      items: list[Any]) -> None:
        kept, dropped = [], []
        seen: Counter[tuple[str, str, str]] = Counter()
        for item in items:
            file = item.nodeid.split("::", 1)[0]
            if self.only is not None:
                key = item.nodeid if item.nodeid in self.only else None
            else:
                key = _function_key(item, self.selected.get(file, set()))
            # per class: an interpret-mode subclass runs its cases even where the compiled
            # base class's cases skip on a CPU
            cls = getattr(getattr(item, "cls", None), "__qualname__", "")
            if key is not None and seen[file, cls, key] < self.per_test:
                seen[file, cls, key] += 1
                self.kept[file] += 1
                kept.append(item)
            else:
                dropped.append(item)
        items[:] = kept
        if dropped:
            config.hook.pytest_deselected(items=dropped)

    def pytest_runtest_setup(self, item: Any) -> None:
        self._test = (item.nodeid.split("::", 1)[0], item.nodeid)
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.stopped = True
            item.session.shouldstop = "--timeout-minutes reached"
            import pytest

            pytest.skip("--timeout-minutes reached")

    def pytest_runtest_logreport(self, report: Any) -> None:
        if type(report).__name__ != "TestReport":
            return  # a subtest's report (pytest >= 9): its test is counted once
        file = report.nodeid.split("::", 1)[0]
        if report.when == "call":
            if report.outcome != "skipped":
                self.ran[file] += 1
            self.outcomes[report.outcome] += 1
        elif report.when == "setup" and report.outcome != "passed":
            self.outcomes[report.outcome] += 1
        if report.skipped and isinstance(report.longrepr, tuple):
            wanted = re.search(r"requires (\d+) (?:\w+ )?devices?\b", str(report.longrepr[2]))
            if wanted and 0 < int(wanted.group(1)) <= 64 and int(wanted.group(1)) != DEVICES[0]:
                self.device_skips[int(wanted.group(1))].append(report.nodeid)

    def pytest_runtest_logfinish(self, nodeid: str, location: Any) -> None:
        self.finished += 1

    @property
    def not_run(self) -> int:
        """The tests the time limit left out (the one it stopped at among them)."""
        return sum(self.kept.values()) - self.finished + 1 if self.stopped else 0

    # the checks

    def _patch(self) -> None:
        import unittest.case

        self._wrap(unittest.case._AssertRaisesContext,
                   lambda ctx: getattr(ctx, "expected", ()))
        try:
            from absl.testing import absltest
        except ImportError:
            pass
        else:
            self._wrap(absltest.TestCase._AssertRaisesContext,
                       lambda ctx: getattr(ctx, "expected_exception", ()))
        try:  # pytest >= 8.4
            from _pytest.raises import RaisesExc
        except ImportError:
            from _pytest.python_api import RaisesContext as RaisesExc  # type: ignore
        self._wrap(RaisesExc, lambda ctx: (getattr(ctx, "expected_exceptions", None)
                                           or getattr(ctx, "expected_exception", ())))

    def _wrap(self, cls: type, expected: Callable[[Any], Any]) -> None:
        """Diagnose the error before ``cls.__exit__`` runs (unittest's clears the frames of
        the traceback, absl's drops it), and keep the record when ``__exit__`` caught it."""
        original = cls.__dict__["__exit__"]
        recorder = self

        def __exit__(ctx: Any, exc_type: Any, exc_value: Any, tb: Any) -> Any:
            record = None
            try:
                kinds = expected(ctx)
                if isinstance(exc_value, BaseException) and kinds and isinstance(
                        exc_value, kinds):
                    record = recorder.hand(exc_value)
            except Exception:
                record = None
            result = original(ctx, exc_type, exc_value, tb)
            if record is not None and result:
                recorder.keep(record)
            return result

        __exit__.__wrapped__ = original  # type: ignore[attr-defined]
        cls.__exit__ = __exit__  # type: ignore[attr-defined]
        self._undo.append(lambda: setattr(cls, "__exit__", original))

    def hand(self, exc: BaseException) -> Record | None:
        """The record of ``jax_nbhelp.diagnose(exc)``; never raises (but for a Ctrl-C)."""
        try:
            return self._diagnose(exc)
        except KeyboardInterrupt:
            raise
        except BaseException:
            return None

    def _diagnose(self, exc: BaseException) -> Record:
        import jax_nbhelp
        from jax_nbhelp.core.session import current
        from jax_nbhelp.diagnosis.provenance import raised_by_jax

        failures = current().failures
        before = failures.count
        failure = None
        diagnosis = None
        start = time.perf_counter()
        try:
            diagnosis = jax_nbhelp.diagnose(exc)
        except KeyboardInterrupt:
            raise
        except BaseException:
            failure = "diagnose raised: " + traceback.format_exc(limit=-3)
        ms = (time.perf_counter() - start) * 1e3
        new = failures.count - before
        if new > 0 and failure is None:
            failure = "\n".join(failures.items[-min(new, len(failures.items)):])
        try:
            jax_raised = raised_by_jax(exc, strictly=True)
        except Exception:
            jax_raised = False
        code = getattr(diagnosis, "code", None)
        if failure is not None:
            kind = "engine failure"
        elif diagnosis is None:
            kind = "nothing"
        elif code == GENERAL:
            kind = "general"
        elif code == EXPLAINED:
            kind = "explained"
        else:
            kind = "entry"
        file, test = self._test
        offered = [f for f in getattr(diagnosis, "fixes", ()) if f.kind != "check"]
        # a test file is no notebook: a rewrite cannot apply here, so safe is what counts
        usable = [f for f in offered if f.safe]
        return Record(file, test, type(exc).__qualname__, _message(exc), jax_raised, kind,
                      code, getattr(diagnosis, "title", None),
                      _first_sentence(getattr(diagnosis, "explanation", None)), ms, failure,
                      len(offered), bool(usable), offered[0].label if offered else None)

    def keep(self, record: Record) -> None:
        self.records.append(record)
        if self.verbose is not None:
            print(f"\n  {record.test}: {record.exception}: {record.message[:100]}\n"
                  f"    -> {'JAX' if record.jax_raised else 'not JAX'}, {record.kind}"
                  f" {record.code or ''} {record.title or ''} ({record.ms:.1f} ms)"
                  + (f"\n    failure: {_first_line(record.failure.splitlines()[-1])}"
                     if record.failure else ""), file=self.verbose, flush=True)


# --- the run ---------------------------------------------------------------------------


@contextmanager
def _in_folder(folder: Path) -> Iterator[None]:
    previous = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(previous)


def _environment(devices: int) -> None:
    """Set before jax is imported: all of JAX's frames kept, the CPU with ``devices``."""
    DEVICES[0] = devices
    os.environ["JAX_TRACEBACK_FILTERING"] = "off"
    os.environ["JAX_PLATFORMS"] = "cpu"
    flags = re.sub(r"--xla_force_host_platform_device_count=\S*", "",
                   os.environ.get("XLA_FLAGS", ""))
    os.environ["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={devices}".strip()
    import jax

    jax.config.update("jax_traceback_filtering", "off")  # type: ignore[no-untyped-call,unused-ignore]


class _CheckoutModules(importlib.abc.MetaPathFinder):
    """JAX's test-only modules, which the wheel leaves out (``jax._src.hypothesis_test_util``,
    ``jax._src.pallas.pallas_test_util``), from the checkout: asked last, so a module the
    installed jax has is always the installed one."""

    def __init__(self, source: Path) -> None:
        self.source = source

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        parts = name.split(".")
        if parts[0] != "jax" or len(parts) < 2:
            return None
        folder = self.source.joinpath(*parts[:-1])
        if not folder.is_dir():
            return None
        return importlib.machinery.PathFinder.find_spec(name, [str(folder)])


def run(source: Path, files: list[Path], per_test: int, deadline: float | None,
        verbose: bool, only: set[str] | None = None) -> Recorder:
    import pytest

    tests = source / "tests"
    selected = ({path.relative_to(tests).as_posix(): expecting_tests(path) for path in files}
                if only is None else {name.split("::", 1)[0]: set() for name in only})
    # the records go to the terminal itself: pytest captures sys.stdout while a test runs
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1) if verbose else None
    recorder = Recorder(selected, per_test, deadline, out, only)
    if str(source) not in sys.path:
        sys.path.append(str(source))  # after the installed jax: a checkout's jax/ must not win
    sys.meta_path.append(_CheckoutModules(source))
    args = ["-c", os.devnull, "--rootdir", str(tests), "-o", "addopts=",
            "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:jax_nbhelp",
            "-q", "--no-header", "--tb=no", "-W", "ignore",
            "--continue-on-collection-errors", *selected]
    try:
        with _in_folder(tests):
            pytest.main(args, plugins=[recorder])
    finally:
        if out is not None:
            out.close()
    _drop_failed_effects()
    return recorder


def _drop_failed_effects() -> None:
    """A test's failed ordered callback (Pallas' interpreter) would be raised again by JAX's
    exit handlers, after the figures: wait for the effects here and drop what failed."""
    import jax

    try:
        jax.effects_barrier()  # type: ignore[no-untyped-call,unused-ignore]
    except Exception:
        from jax._src import dispatch

        dispatch.runtime_tokens.clear()  # type: ignore[no-untyped-call,unused-ignore]


# --- the figures -----------------------------------------------------------------------


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def _row(name: str, records: list[Record], tests: int | None) -> str:
    kinds = Counter(r.kind for r in records)
    ms = [r.ms for r in records]
    timing = (f"{statistics.median(ms):9.1f} {_percentile(ms, 0.99):8.1f}" if ms
              else f"{'-':>9} {'-':>8}")
    return (f"{name:<52} {'' if tests is None else tests:>6} {len(records):>7} "
            f"{sum(r.jax_raised for r in records):>5} "
            + " ".join(f"{kinds[k]:>{len(h)}}" for k, h in zip(KINDS, _HEADS, strict=True))
            + f" {timing}")


def _table(title: str, recorder: Recorder, keep: Callable[[Record], bool]) -> list[str]:
    by_file: dict[str, list[Record]] = defaultdict(list)
    for record in recorder.records:
        if keep(record):
            by_file[record.file].append(record)
    head = (f"{title:<52} {'tests':>6} {'handed':>7} {'JAX':>5} " + " ".join(_HEADS)
            + f" {'median ms':>9} {'p99 ms':>8}")
    lines = [head, "-" * len(head)]
    for file in sorted(set(recorder.kept) | set(by_file)):
        lines.append(_row(file, by_file[file], recorder.ran[file]))
    lines.append(_row("total", [r for r in recorder.records if keep(r)],
                      sum(recorder.ran.values())))
    return lines


def summary(recorder: Recorder, seconds: float) -> str:
    records = recorder.records
    jax_records = [r for r in records if r.jax_raised]
    outcomes = ", ".join(f"{n} {k}" for k, n in sorted(recorder.outcomes.items()))
    lines = [
        "",
        f"Tests selected: {sum(recorder.kept.values())}; ran: {sum(recorder.ran.values())} "
        f"({outcomes or 'none'})"
        + "".join(f"; {n} re-run with {d} device(s)" for d, n in sorted(recorder.reruns.items()))
        + (f"; stopped at the time limit, {recorder.not_run} not run" if recorder.stopped
           else "; a re-run stopped at the time limit" if recorder.rerun_stopped else ""),
        f"Errors handed to jax_nbhelp: {len(records)}; raised by JAX: {len(jax_records)}",
        "",
        *_table("All errors handed", recorder, lambda r: True),
        "",
        *_table("Errors JAX raised", recorder, lambda r: r.jax_raised),
    ]
    for name, group in (("all", records), ("JAX raised", jax_records)):
        kinds = Counter(r.kind for r in group)
        lines.append(f"\nTotals ({name}, {len(group)}): "
                     + ", ".join(f"{k} {kinds[k]}" for k in KINDS))
        for kind in ("entry", "explained"):
            cards = [r for r in group if r.kind == kind]
            lines.append(f"  {kind} cards with a fix offered: {sum(r.fixes > 0 for r in cards)}"
                         f", with a safe one (same results): "
                         f"{sum(r.safe_fix for r in cards)}")

    failures = Counter(_first_line(r.failure.strip().splitlines()[-1], 200)
                       for r in records if r.failure)
    lines += ["", f"Engine failures, distinct ({sum(failures.values())} in all):"]
    lines += [f"  {n:>4}  {text}" for text, n in failures.most_common()] or ["  none"]

    left = Counter(f"{r.exception}: {r.message[:80]}" for r in records
                   if r.kind in ("general", "nothing"))
    jax_left = Counter(f"{r.exception}: {r.message[:80]}" for r in records
                       if r.kind in ("general", "nothing") and r.jax_raised)
    lines += ["", f"The {TOP} most frequent errors left with the general view or nothing "
              "(count, of which JAX raised):"]
    lines += [f"  {n:>4} {jax_left[text]:>4}  {text}" for text, n in left.most_common(TOP)] or [
        "  none"]

    lines += ["", "Files that did not import or collect:"]
    lines += [f"  {file}: {why}" for file, why in sorted(recorder.import_errors.items())] or [
        "  none"]
    lines += ["", f"Whole run: {seconds:.0f} s ({seconds / 60:.1f} min)"]
    return "\n".join(lines)


def _state(recorder: Recorder) -> dict[str, Any]:
    """What a re-run hands back to the run that started it."""
    return {"records": [asdict(r) for r in recorder.records], "ran": recorder.ran,
            "outcomes": recorder.outcomes, "stopped": recorder.stopped}


def rerun_with_devices(recorder: Recorder, source: Path, deadline: float | None,
                       verbose: bool) -> None:
    """Run again, in a process of their own, the tests that skipped for the number of devices
    (Pallas' TPU interpreter tests want exactly one), and add what they hand over."""
    import subprocess
    import tempfile

    for devices, ids in sorted(recorder.device_skips.items()):
        left = None if deadline is None else (deadline - time.monotonic()) / 60
        if left is not None and left <= 0:
            break
        print(f"\nRe-running {len(ids)} tests that want {devices} device(s), in a process of "
              "their own:", flush=True)
        with tempfile.TemporaryDirectory() as folder:
            names, state = Path(folder, "ids.txt"), Path(folder, "state.json")
            names.write_text("\n".join(ids), encoding="utf-8")
            command = [sys.executable, __file__, str(source), "--devices", str(devices),
                       "--node-ids", str(names), "--state", str(state)]
            command += ["--verbose"] if verbose else []
            command += ["--timeout-minutes", f"{left:.3f}"] if left is not None else []
            subprocess.run(command, check=False)
            if not state.is_file():
                print(f"  (the re-run with {devices} device(s) handed nothing back)")
                continue
            done = json.loads(state.read_text(encoding="utf-8"))
        recorder.records += [Record(**r) for r in done["records"]]
        recorder.ran.update(done["ran"])
        recorder.outcomes["skipped"] -= len(ids)
        recorder.outcomes.update(done["outcomes"])
        recorder.reruns[devices] += len(ids)
        recorder.rerun_stopped = recorder.rerun_stopped or done["stopped"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path,
                        help="a checkout of JAX's source at the installed release's tag")
    parser.add_argument("--files", nargs="*", default=[],
                        help="only the files whose name starts with one of these "
                             "(api, lax_numpy, pallas/ops)")
    parser.add_argument("--per-test", type=int, default=3,
                        help="cases run of each parameterized test (default 3)")
    parser.add_argument("--json", type=Path, help="also write every record here")
    parser.add_argument("--verbose", action="store_true", help="print each record")
    parser.add_argument("--timeout-minutes", type=float,
                        help="start no test after this long (the rest are counted as not run)")
    parser.add_argument("--devices", type=int, default=8,
                        help="host devices of the CPU (default 8; tests that skip for "
                             "wanting another number are re-run with it)")
    # a re-run of given tests (rerun_with_devices): their node ids, where to hand back
    parser.add_argument("--node-ids", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--state", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()

    source = args.source.resolve()
    tests = source / "tests"
    if not tests.is_dir():
        print(f"no tests/ folder in {args.source}", file=sys.stderr)
        return 2
    start = time.monotonic()
    deadline = start + 60 * args.timeout_minutes if args.timeout_minutes else None
    _environment(args.devices)
    sys.path.insert(0, str(ROOT))  # this checkout's jax_nbhelp
    if args.node_ids:
        only = set(args.node_ids.read_text(encoding="utf-8").split())
        recorder = run(source, [], 1, deadline, args.verbose, only)
        if args.state:
            args.state.write_text(json.dumps(_state(recorder)), encoding="utf-8")
        return 0

    files = test_files(tests, args.files)
    if not files:
        print(f"no test file matches {' '.join(args.files)}", file=sys.stderr)
        return 2
    recorder = run(source, files, args.per_test, deadline, args.verbose)
    rerun_with_devices(recorder, source, deadline, args.verbose)
    seconds = time.monotonic() - start
    print(summary(recorder, seconds), flush=True)
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in recorder.records], indent=1),
                             encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
