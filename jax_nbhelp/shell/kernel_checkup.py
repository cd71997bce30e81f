"""The kernel checkup, ``%%jax_nbhelp check``: a cell's Pallas TPU kernels run in JAX's TPU
interpreter with its checks on, to find the bugs that raise nothing on a chip.

The cell runs several times, each time from the namespace it started with, every kernel built
during the run interpreted (``pltpu.force_tpu_interpret_mode``):

- with uninitialized memory filled with zeros, twice (the second run says whether the cell
  is deterministic at all), and with the parallel grid dimensions run in other orders
  (``random_seed`` 1 and 2);
- last, the run that stays: uninitialized memory filled with NaN, race detection on, and
  reads out of bounds raising. Its output is shown and its namespace is kept, as if the cell
  had run once in TPU interpret mode.

Findings (``Finding.kind``):

- ``race``: the interpreter reported a race (its "RACE DETECTED" report, with the kernel line
  of each access where it has one; the report itself is not printed);
- ``uninitialized``: a result holds NaN in the NaN-filled run where the zero-filled run has
  none: the kernel read memory it never wrote;
- ``order``: the zero-filled run gives the same results twice, and another order of the
  parallel dimensions gives other ones: a "parallel" dimension carries state;
- ``out_of_bounds``: the interpreter raised for a read past a buffer's end; the error and its
  card are IPython's and jax_nbhelp's as for any error, and the checkup names it too.

Only the results bound by the cell (names whose value is an array) are compared. Which
checks the installed JAX's interpreter has is probed (``InterpretParams``'s fields); a check
it lacks is listed as not run, never reported clean. ``jax_nbhelp.last_checkup()`` returns
the last checkup.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import dataclasses
import functools
import inspect
import io
import re
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from typing import Any

from jax_nbhelp.core.model import Checkup, Diagnosis, Finding, Fix, Location
from jax_nbhelp.core.session import RerunSource, Session, running_cell, typed_source

# the checks, in the order a report lists them, and the interpreter's field each needs
CHECKS = (("race", "detect_races"), ("uninitialized", "uninitialized_memory"),
          ("out_of_bounds", "out_of_bounds_reads"), ("order", "random_seed"))
_RACE = re.compile(r"RACE DETECTED\n(?P<report>(?:[ \t]+.*\n?)*)")
# "read of ('vmem', 103, 0, 0)[()] from 0, 0, <file>:45:17 (dma_kernel)"
_ACCESS = re.compile(r"(?P<what>read|write) of .*? from (?P<device>\d+), (?P<core>\d+), "
                     r"(?P<file>[^\s,]+?):(?P<line>\d+)(?::\d+)? \((?P<function>[^)]*)\)")

CODES = {"race": "JNH641", "uninitialized": "JNH642", "out_of_bounds": "JNH643",
         "order": "JNH644"}
TITLES = {
    "race": "A race between two accesses of one buffer in a Pallas kernel",
    "uninitialized": "A Pallas kernel read memory it never wrote",
    "out_of_bounds": "A Pallas kernel read past the end of a buffer",
    "order": "A Pallas kernel's results depend on the order of a parallel dimension",
}
WHY = {
    "race": ("The interpreter follows which core or DMA wrote and read each buffer and in "
             "what order they were guaranteed to happen (a .wait(), a barrier). Two accesses "
             "with no such order, one of them a write, race: on the chip either may come "
             "first, so the result can change from run to run or from chip to chip."),
    "uninitialized": ("On the chip an output or scratch buffer starts with whatever the memory "
                      "held. The interpreter filled it with NaN in one run and with zeros in "
                      "another: a result that is NaN only in the first read memory the kernel "
                      "never wrote, which on the chip gives numbers that are wrong, or right "
                      "by chance."),
    "out_of_bounds": ("The chip does not check the bounds of a read: a slice past the end reads "
                      "whatever lies there. The interpreter checks, and raised."),
    "order": ("A grid dimension marked \"parallel\" may run its steps in any order, or split "
              "them between cores. The interpreter ran it in other orders and the results "
              "changed: a step reads state another step left (an accumulator in the output, "
              "a scratch buffer), which needs the dimension to be \"arbitrary\"."),
}
WAY_OUT = {
    "race": ("Order the accesses: .wait() on the copy before reading its destination, a "
             "barrier (or a semaphore) between cores that write one buffer, or a buffer per "
             "core."),
    "uninitialized": ("Initialise it on the first grid step before accumulating: "
                      "`@pl.when(pl.program_id(0) == 0)` on a function that writes zeros "
                      "(or the first value) into it."),
    "out_of_bounds": "Bound the slice: its start plus its size must stay within the buffer.",
    "order": ("Mark the dimension that carries state \"arbitrary\" "
              "(`dimension_semantics=(\"arbitrary\", ...)` in the kernel's compiler params)."),
}


def available() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The checks the installed JAX's TPU interpreter can make, and those it cannot."""
    try:
        from jax.experimental.pallas import tpu as pltpu
    except Exception:
        return (), tuple(kind for kind, _ in CHECKS)
    params = getattr(pltpu, "InterpretParams", None)
    fields = ({field.name for field in dataclasses.fields(params)}
              if params is not None and dataclasses.is_dataclass(params) else set())
    if getattr(pltpu, "force_tpu_interpret_mode", None) is None:
        fields = set()
    have = tuple(kind for kind, field in CHECKS if field in fields)
    return have, tuple(kind for kind, _ in CHECKS if kind not in have)


@dataclasses.dataclass(frozen=True)
class _Interpreter:
    """One of JAX's kernel interpreters as the checkup drives it: its params type, the
    context that forces it on every kernel built under it, and which checks it has."""

    name: str  # "TPU" or "GPU"
    params_type: Any
    force: Callable[[Any], Any]
    reset: Callable[[], Any] | None
    have: tuple[str, ...]
    lacking: tuple[str, ...]

    def params(self, **wanted: Any) -> Any:
        fields = {field.name for field in dataclasses.fields(self.params_type)}
        return self.params_type(**{k: v for k, v in wanted.items() if k in fields})


def _tpu_interpreter() -> _Interpreter:
    from jax.experimental.pallas import tpu as pltpu

    have, lacking = available()
    return _Interpreter("TPU", pltpu.InterpretParams, pltpu.force_tpu_interpret_mode,
                        getattr(pltpu, "reset_tpu_interpret_mode_state", None), have, lacking)


# where JAX's GPU interpreter keeps its reset (0.10), probed
_GPU_RESET = ("jax._src.pallas.mosaic_gpu.interpret.interpret_pallas_call",
              "reset_gpu_interpret_mode_state")


def _gpu_interpreter() -> _Interpreter | None:
    """JAX's GPU interpreter (Mosaic GPU kernels), where this JAX has one that can be forced
    on a cell's kernels; its checks: races between threads, uninitialized and out-of-bounds
    reads. It runs one block, so no order of a grid to vary."""
    from jax_nbhelp.jaxapi import jax_probe
    from jax_nbhelp.jaxapi.interpret_modes import gpu_params_home

    home = gpu_params_home()
    params = jax_probe.attribute(home, "InterpretGPUParams") if home else None
    force = jax_probe.attribute(home, "force_gpu_interpret_mode") if home else None
    if params is None or force is None or not dataclasses.is_dataclass(params):
        return None
    fields = {field.name for field in dataclasses.fields(params)}
    have = tuple(kind for kind, field in CHECKS if field in fields and kind != "order")
    return _Interpreter("GPU", params, force, jax_probe.attribute(*_GPU_RESET), have,
                        tuple(kind for kind, _ in CHECKS if kind not in have))


@dataclasses.dataclass
class _Kernel:
    """A kernel the cell built, as ``pallas_call`` saw it."""

    name: str
    function: Any
    filename: str  # where the pallas_call(...) line is
    lineno: int


@dataclasses.dataclass
class _Run:
    results: dict[str, Any]
    printed: str
    error: BaseException | None = None


class GpuKernel(Exception):
    """Raised where a run of the checkup builds a GPU kernel: its checks are the TPU
    interpreter's, which do not apply to it, so the checkup stops trying."""


def _for_a_gpu(value: Any) -> bool:
    """A GPU kernel's settings: Triton's or Mosaic GPU's compiler params, a Mosaic GPU
    mesh, or ``backend="triton"``/``"mosaic_gpu"``."""
    if isinstance(value, str):
        return value in ("triton", "mosaic_gpu")
    module = type(value).__module__
    return "triton" in module or "mosaic_gpu" in module


class _Recorder:
    """Wraps Pallas's kernel builders (``pl.pallas_call``, ``pl.kernel``, ``pl.core_map``,
    and Mosaic GPU's ``kernel`` where it is imported) while the cell runs, to name the
    kernels it builds and where. ``refuse_gpu``: a GPU kernel raises ``GpuKernel`` before
    it is built (and is named in ``gpu``)."""

    BUILDERS = ("pallas_call", "kernel", "core_map")
    GPU_MODULE = "jax.experimental.pallas.mosaic_gpu"

    def __init__(self, refuse_gpu: bool = True) -> None:
        self.kernels: list[_Kernel] = []
        self.gpu: list[tuple[str, bool]] = []  # (name, a Mosaic GPU kernel)
        self.refuse_gpu = refuse_gpu

    def _note(self, function: Any, caller: Any) -> None:
        while isinstance(function, functools.partial):  # a kernel with its settings bound
            function = function.func
        code = getattr(function, "__code__", None)
        if code is None or any(k.function is function for k in self.kernels):
            return
        self.kernels.append(_Kernel(getattr(function, "__name__", "kernel"), function,
                                    caller.f_code.co_filename, caller.f_lineno))

    def _gpu(self, body: Any, gpu: bool, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        settings = (*args[1:], *kwargs.values())
        if not (gpu or any(_for_a_gpu(value) for value in settings)):
            return
        while isinstance(body, functools.partial):
            body = body.func
        name = getattr(body, "__name__", "a GPU kernel") if callable(body) else "a GPU kernel"
        # Mosaic GPU's (which JAX's GPU interpreter runs), or Triton's (which it does not)
        mosaic = gpu or any(_for_a_gpu(value) and "triton" not in str(value)
                            and "triton" not in type(value).__module__ for value in settings)
        self.gpu.append((name, mosaic))
        if self.refuse_gpu:
            raise GpuKernel(name)

    def _wrap(self, original: Any, gpu: bool = False) -> Any:
        # the builder's name, docstring and signature stay its own: a cell that inspects
        # them (does plgpu.kernel take interpret=?) sees what it would without the checkup
        @functools.wraps(original)
        def builder(*args: Any, **kwargs: Any) -> Any:
            caller = sys._getframe(1)
            body = args[0] if args and callable(args[0]) else kwargs.get("body")
            if callable(body):
                self._gpu(body, gpu, args, kwargs)
            result = original(*args, **kwargs)
            if callable(body) and (hasattr(body, "__code__")
                                   or isinstance(body, functools.partial)):
                self._note(body, caller)
                return result
            if not callable(result):
                return result

            def decorated(function: Any, *more: Any, **named: Any) -> Any:
                self._gpu(function, gpu, args, kwargs)
                self._note(function, caller)
                return result(function, *more, **named)
            return decorated  # ``@pl.kernel(...)``, ``@pl.core_map(mesh)``: the body follows
        return builder

    @contextlib.contextmanager
    def watching(self) -> Iterator[None]:
        from jax.experimental import pallas as pl

        patched = [(pl, name, getattr(pl, name), False) for name in self.BUILDERS
                   if hasattr(pl, name)]
        gpu_module = sys.modules.get(self.GPU_MODULE)  # only where the cell's JAX has it
        if gpu_module is not None and hasattr(gpu_module, "kernel"):
            patched.append((gpu_module, "kernel", gpu_module.kernel, True))
        for module, name, original, gpu in patched:
            setattr(module, name, self._wrap(original, gpu))
        try:
            yield
        finally:
            for module, name, original, _ in patched:
                setattr(module, name, original)


def _arrays(namespace: dict[str, Any], before: dict[str, Any]) -> dict[str, Any]:
    """The arrays the cell bound (new names, or names it bound to another object), as NumPy."""
    import numpy as np

    found: dict[str, Any] = {}
    for name, value in namespace.items():
        if name.startswith("_") or before.get(name, _MISSING) is value:
            continue
        if type(value).__module__.startswith(("jax", "jaxlib")) and hasattr(value, "shape"):
            with contextlib.suppress(Exception):
                found[name] = np.asarray(value)
    return found


_MISSING = object()


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)


def _equal(a: Any, b: Any) -> bool:
    """Two results alike: the same shape and values, NaN where the other has NaN (for
    floats); a kind NumPy cannot compare (keys, objects) counts as alike."""
    import numpy as np

    try:
        return bool(a.shape == b.shape and np.array_equal(
            a, b, equal_nan=a.dtype.kind in "fc" and b.dtype.kind in "fc"))
    except (TypeError, ValueError):
        return True


def _run(shell: Any, code: Any, before: dict[str, Any], params: Any, recorder: _Recorder,
         keep: bool, interpreter: _Interpreter | None = None) -> _Run:
    """One run of the cell's code from ``before``, every kernel built in it interpreted by
    ``interpreter`` with ``params`` (as written where they are None); printed output captured.
    ``keep``: the run that stays (errors propagate)."""
    __tracebackhide__ = True  # IPython shows the cell's frames, not the checkup's
    import jax

    # a function jitted earlier keeps what it traced, interpreter settings included: each
    # run traces anew, and what the checkup compiled is not kept for later cells
    jax.clear_caches()  # type: ignore[no-untyped-call]
    namespace = shell.user_ns
    namespace.clear()
    # each run starts from the namespace the cell started with: a list, dict or set it
    # changes in place is a copy in every run but the kept one
    namespace.update(before if keep else {
        name: copy.copy(value) if type(value) in (list, dict, set) else value
        for name, value in before.items()})
    printed = io.StringIO()
    error: BaseException | None = None
    try:
        with contextlib.redirect_stdout(printed), recorder.watching(), _quiet(not keep), \
                (interpreter.force(params) if interpreter is not None and params is not None
                 else contextlib.nullcontext()):
            exec(code, namespace)
            jax.effects_barrier()  # type: ignore[no-untyped-call]
    except Exception as exc:
        if interpreter is not None and interpreter.reset is not None:
            with contextlib.suppress(Exception):
                interpreter.reset()
        if keep:  # what the cell printed before its error is the user's to see
            sys.stdout.write(_RACE.sub("", printed.getvalue()))
            raise
        error = exc
    return _Run(_arrays(namespace, before), printed.getvalue(), error)


@contextlib.contextmanager
def _quiet(quiet: bool) -> Iterator[None]:
    """A run whose output nobody sees: JAX's log of a failed callback ("jax.io_callback
    failed", with the interpreter's error) stays out of the notebook, as its prints do."""
    import logging

    logger = logging.getLogger("jax._src.callback")
    disabled = logger.disabled
    logger.disabled = disabled or quiet
    try:
        with contextlib.redirect_stderr(io.StringIO()) if quiet else contextlib.nullcontext():
            yield
    finally:
        logger.disabled = disabled


def _location(shell: Any, filename: str, lineno: int, function: str = "") -> Location | None:
    from jax_nbhelp.diagnosis.sources import locate

    with contextlib.suppress(Exception):
        return locate(filename, lineno, function, shell)
    return None


def _kernel_line(shell: Any, kernel: _Kernel, find: Callable[[ast.AST], bool] | None,
                 last: bool = False) -> Location | None:
    """The line of ``kernel``'s body that matters (the first node ``find`` accepts, or the
    last), else its ``def`` line (below its decorators)."""
    code = getattr(kernel.function, "__code__", None)
    if code is None:
        return _location(shell, kernel.filename, kernel.lineno)
    lineno = code.co_firstlineno
    with contextlib.suppress(Exception):
        lines, start = inspect.getsourcelines(kernel.function)
        tree = ast.parse(textwrap.dedent("".join(lines)))
        definition = tree.body[0]
        lineno = start + definition.lineno - 1
        found = [n for n in ast.walk(definition) if find is not None and find(n)]
        node = (max(found, key=lambda n: getattr(n, "lineno", 0)) if last and found
                else found[0] if found else None)
        if node is not None:
            lineno = start + getattr(node, "lineno", 1) - 1
    return _location(shell, code.co_filename, lineno, kernel.name)


def accumulated_ref(node: ast.AST) -> str | None:
    """The ref whose old value ``node`` reads as it writes it: ``o_ref`` of ``o_ref[...] +=
    x`` or of ``acc[...] = acc[...] + x``; None for any other node."""
    target = (node.target if isinstance(node, ast.AugAssign) else
              node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1
              else None)
    if not isinstance(target, ast.Subscript) or not isinstance(target.value, ast.Name):
        return None
    name = target.value.id
    if isinstance(node, ast.AugAssign) or any(
            isinstance(read, ast.Subscript) and isinstance(read.value, ast.Name)
            and read.value.id == name for read in ast.walk(node.value)):  # type: ignore[attr-defined]
        return name
    return None


def _accumulates(node: ast.AST) -> bool:
    return accumulated_ref(node) is not None


def _copies_into_a_whole_ref(node: ast.AST) -> bool:
    """``pltpu.sync_copy(buf, o_hbm)``: a copy whose destination is a whole ref, which every
    core (or copy) that runs it writes."""
    if not isinstance(node, ast.Call) or len(node.args) < 2:
        return False
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    return name in ("sync_copy", "make_async_copy", "async_copy") and isinstance(node.args[1],
                                                                                ast.Name)


def _races(shell: Any, printed: str, kernels: list[_Kernel]) -> list[Finding]:
    findings = []
    for found in _RACE.finditer(printed):
        accesses = [access for access in _ACCESS.finditer(found["report"])
                    if "jax/_src" not in access["file"]]
        # the read is the access that came too early (a DMA's destination read before its
        # .wait()); between two writes, the first reported
        first = next((a for a in accesses if a["what"] == "read"),
                     accesses[0] if accesses else None)
        location = (_location(shell, first["file"], int(first["line"]), first["function"])
                    if first is not None else None)
        kernel = next((k for k in kernels if first is not None
                       and k.name == first["function"]), kernels[0] if kernels else None)
        places = [_location(shell, a["file"], int(a["line"]), a["function"]) for a in accesses]
        said = [f"a {a['what']} at {place.label}" if place is not None else f"a {a['what']}"
                for a, place in zip(accesses, places, strict=True)]
        what = (" and ".join(said) if len(set(said)) > 1 else  # one line, run twice at once
                f"two {accesses[0]['what']}s at {places[0].label}"
                if accesses and places[0] is not None else " and ".join(said))
        if not accesses:  # between cores or DMAs, the report names no line: the kernel's
            memory = re.search(r"of \('(?P<space>\w+)'", found["report"])
            space = memory["space"].upper() if memory else "one"
            what = (f"two writes of one {space} buffer, from two cores or copies, "
                    "with no order between them")
            if kernel is not None:
                # the copy out at the end: its destination is what the cores share
                location = _kernel_line(shell, kernel, _copies_into_a_whole_ref, last=True)
        else:
            what += " with no order between them"
            cores = sorted({int(a["core"]) for a in accesses})
            if len(cores) > 1:  # the interpreter's numbers: a TPU's cores, a GPU's threads
                what += f" (cores or threads {' and '.join(map(str, cores))})"
        findings.append(Finding("race", kernel.name if kernel is not None else "?", location,
                                what))
        break  # one report stands for the run: the first race found
    return findings


# a checkup whose first run takes this long says how long the rest will take, and each run
_LONG_RUN = 5.0


class _Pace:
    """The checkup's runs, timed: a long one says before each run which it is and about how
    long the rest takes (measured on the runs so far), and ``report`` (a card's progress
    bar: the run done so far, and the text) hears of every run."""

    def __init__(self, total: int, report: Callable[[int, int, str, float], None] | None,
                 ) -> None:
        self.total = total
        self.report = report
        self.done = 0
        self.start = time.perf_counter()

    def run(self, label: str, step: Callable[[], _Run]) -> _Run:
        elapsed = time.perf_counter() - self.start
        each = elapsed / self.done if self.done else 0.0
        text = f"run {self.done + 1} of {self.total}: {label}"
        if self.done and each >= _LONG_RUN:
            from jax_nbhelp.core.units import duration

            left = each * (self.total - self.done)
            sys.stdout.write(f"jax_nbhelp checkup: {text} (about {duration(left)} left; "
                             "interrupt the kernel to stop: the namespace stays as it "
                             "was before the cell)\n")
            sys.stdout.flush()
        if self.report is not None:
            self.report(self.done, self.total, text, elapsed)
        try:
            return step()
        finally:
            self.done += 1


def _gpu_for(recorder: _Recorder) -> _Interpreter | None:
    """JAX's GPU interpreter, where every kernel the cell built is a Mosaic GPU kernel (no
    TPU kernel beside them: one interpreter is forced on a run) and this JAX has one."""
    if recorder.kernels or not all(mosaic for _, mosaic in recorder.gpu):
        return None
    return _gpu_interpreter()


def _gpu_checkup(shell: Any, code: Any, before: dict[str, Any], recorder: _Recorder,
                 session: Session) -> Checkup:
    """A cell that builds a GPU kernel: nothing is checked (the checks are the TPU
    interpreter's), and the cell runs once as written, so the namespace is one run's and an
    error of it is its own. The checkup says which checks did not run, never clean."""
    __tracebackhide__ = True
    names = tuple(dict.fromkeys(name for name, _ in recorder.gpu))
    checkup = Checkup(
        kernels=names, checks=(), findings=(), not_run=tuple(kind for kind, _ in CHECKS),
        note=(f"{', '.join(names)} {'is a GPU kernel' if len(names) == 1 else 'are GPU kernels'}"
              ": the checkup's checks run in JAX's TPU interpreter, and in its GPU "
              "interpreter only for Mosaic GPU kernels alone in a cell; the cell ran once as "
              "written"))
    session.last_checkup = checkup
    print(clean_line(checkup))  # said first: an error of the run would end the cell
    plain = _run(shell, code, before, None, _Recorder(refuse_gpu=False), keep=True)
    sys.stdout.write(plain.printed)
    return checkup


def _stopped(shell: Any, before: dict[str, Any], recorder: _Recorder,
             interpreter: _Interpreter, have: tuple[str, ...], lacking: tuple[str, ...],
             session: Session) -> Checkup:
    """An interrupted checkup: the namespace as it was before the cell, nothing claimed."""
    import jax

    shell.user_ns.clear()
    shell.user_ns.update(before)
    if interpreter.reset is not None:  # the interpreter that was running, TPU's or GPU's
        with contextlib.suppress(Exception):
            interpreter.reset()
    jax.clear_caches()  # type: ignore[no-untyped-call]
    checkup = Checkup(kernels=tuple(dict.fromkeys(k.name for k in recorder.kernels)),
                      checks=have, findings=(), not_run=lacking, stopped=True,
                      note="stopped before it finished: the namespace is as it was before "
                           "the cell")
    session.last_checkup = checkup
    return checkup


def _as_typed(shell: Any, number: int, source: str) -> None:
    """The doctor's ``%%jax_nbhelp check auto`` is its own wrapping, not the notebook's: the
    history holds the cell as the notebook does, so a later fix that runs this cell again
    runs the cell's code, not the checkup."""
    manager = getattr(shell, "history_manager", None)
    for name in ("input_hist_raw", "input_hist_parsed"):
        history = getattr(manager, name, None)
        if isinstance(history, list) and 0 <= number < len(history):
            history[number] = (source if name == "input_hist_raw"
                               else shell.transform_cell(source))


def check(shell: Any, source: str, session: Session, auto: bool = False,
          cell: int | None = None,
          report: Callable[[int, int, str, float], None] | None = None) -> Checkup:
    """Run ``source`` as the checkup does and return what it found; the namespace is left as
    the last (kept) run left it. An error of that run propagates, after the checkup is kept.

    ``auto`` (the doctor's ``--check-kernels``, a cell whose source is the notebook's own):
    the cell runs once as written, and only when it built a Pallas kernel is it checked (run
    again as the checkup does), after which the namespace is the one the cell as written
    left; a cell that fails as written (a TPU kernel on a CPU) runs once as the kept run
    does instead. Its lines are the cell's own. ``cell``:
    the number of the cell whose whole source ``source`` is (a card's "Check this kernel"),
    so its lines are that cell's. ``report(done, total, text, seconds)`` hears of each run.

    An interrupt (the kernel's stop) ends it: the namespace is put back as it was before the
    cell, and the checkup says it stopped (``Checkup.stopped``), never that it is clean."""
    __tracebackhide__ = True
    have, lacking = available()
    if not have:
        checkup = Checkup(kernels=(), checks=(), findings=(), not_run=lacking,
                          note="this JAX has no TPU interpreter with checks")
        session.last_checkup = checkup
        return checkup

    # compiled as the cell's own code, its lines where the cell shows them (the magic's line
    # first), so a traceback and a finding name "In [n], line k" as for any cell
    placed = ("" if auto or cell is not None else "\n") + shell.transform_cell(source)
    number = cell if cell is not None else running_cell(shell)
    filename = shell.compile.cache(placed, number)
    if cell is not None and source != typed_source(shell, cell):
        # a fix's code: an error or a finding in it is placed in the source that ran
        session.reruns[str(filename)] = RerunSource(cell=cell, source=source)
    elif auto:  # the cell's own lines, without the magic's: a place shows its own line
        session.reruns[str(filename)] = RerunSource(cell=number, source=source,
                                                    rewritten=False)
        _as_typed(shell, number, source)
    code = compile(placed, filename, "exec")
    before = dict(shell.user_ns)
    recorder = _Recorder()
    interpreter = _tpu_interpreter()
    kept = {"uninitialized_memory": "nan", "detect_races": True,
            "out_of_bounds_reads": "raise", "random_seed": 0}
    # the doctor's cell as the notebook runs it, which a checkup of it must not change
    plain_after: dict[str, Any] | None = None
    if auto:
        plain = _Recorder(refuse_gpu=False)
        first = _run(shell, code, before, None, plain, keep=False)
        if first.error is None:
            sys.stdout.write(first.printed)
            if not plain.kernels:
                checkup = Checkup(kernels=(), checks=have, findings=(), not_run=lacking,
                                  note="no Pallas kernel was built while the cell ran")
                session.last_checkup = checkup
                return checkup
            plain_after = dict(shell.user_ns)
            try:
                return _checked(shell, code, before, session, interpreter, have, lacking,
                                report, recorder, kept, keep=False)
            finally:  # the namespace as the cell left it, its kernels as it built them
                shell.user_ns.clear()
                shell.user_ns.update(plain_after)
    if auto:  # it fails as written (a TPU kernel on a CPU): one run, checked if it built one
        try:
            forced: _Run | None = _run(shell, code, before, interpreter.params(**kept),
                                       recorder, keep=True, interpreter=interpreter)
        except GpuKernel:
            gpu = _gpu_for(recorder)
            if gpu is None:
                return _gpu_checkup(shell, code, before, recorder, session)
            interpreter, have, lacking = gpu, gpu.have, gpu.lacking
            recorder = _Recorder(refuse_gpu=False)
            forced = None
        except Exception as exc:
            found = _out_of_bounds(shell, exc, recorder.kernels, session)
            if found is not None and recorder.kernels:
                session.last_checkup = Checkup(
                    kernels=tuple(dict.fromkeys(k.name for k in recorder.kernels)),
                    checks=have, not_run=lacking, findings=(found,))
            raise
        if forced is not None and not recorder.kernels:
            sys.stdout.write(forced.printed)
            checkup = Checkup(kernels=(), checks=have, findings=(), not_run=lacking,
                              note="no Pallas kernel was built while the cell ran")
            session.last_checkup = checkup
            return checkup
    return _checked(shell, code, before, session, interpreter, have, lacking, report,
                    recorder, kept, keep=True)


def _checked(shell: Any, code: Any, before: dict[str, Any], session: Session,
             interpreter: _Interpreter, have: tuple[str, ...], lacking: tuple[str, ...],
             report: Callable[[int, int, str, float], None] | None, recorder: _Recorder,
             kept: dict[str, Any], keep: bool) -> Checkup:
    """The checkup's runs and what they found. ``keep``: the last run stays (its output is
    shown, its error raised after the checkup is kept); else it is one more run."""
    __tracebackhide__ = True
    kept_error: BaseException | None = None

    def run(label: str, last: bool = False, **params: Any) -> _Run:
        # the interpreter and recorder of the moment: a GPU cell's change both below
        return pace.run(label, lambda: _run(shell, code, before, interpreter.params(**params),
                                            recorder, keep=keep and last,
                                            interpreter=interpreter))

    pace = _Pace(3 + (2 if "order" in have else 0), report)
    try:
        zero = [run("zero fill", uninitialized_memory="zero")]
        if recorder.gpu:  # refused as it was built: nothing of it ran
            gpu = _gpu_for(recorder)
            if gpu is None:
                return _gpu_checkup(shell, code, before, recorder, session)
            # the cell's kernels are Mosaic GPU kernels: JAX's GPU interpreter checks them
            interpreter, have, lacking = gpu, gpu.have, gpu.lacking
            recorder = _Recorder(refuse_gpu=False)
            pace = _Pace(3, report)
            zero = [run("zero fill", uninitialized_memory="zero")]
        zero.append(run("zero fill", uninitialized_memory="zero"))
        orders = [run("the parallel dimensions in another order", uninitialized_memory="zero",
                      random_seed=seed) for seed in ((1, 2) if "order" in have else ())]
        try:
            kept_run = run("NaN fill, race detection, reads out of bounds raising", last=True,
                           **kept)
            kept_error = kept_run.error
        except Exception as exc:
            kept_error, kept_run = exc, _Run({}, "")
    except KeyboardInterrupt:
        return _stopped(shell, before, recorder, interpreter, have, lacking, session)
    findings: list[Finding] = []
    # what the kept run printed, less the interpreter's race reports (the card says them)
    shown = _RACE.sub("", kept_run.printed)
    if keep and shown.strip():
        sys.stdout.write(shown)
    kernels = recorder.kernels
    names = tuple(dict.fromkeys(k.name for k in kernels))
    if "race" in have:
        findings += _races(shell, kept_run.printed + "".join(r.printed for r in zero),
                           kernels)
    raced = {finding.kernel for finding in findings}
    if "uninitialized" in have and kept_error is None and zero[0].error is None:
        import numpy as np

        bad = [name for name, value in kept_run.results.items()
               if value.dtype.kind in "fc" and name in zero[0].results
               and np.isnan(value).any() and not np.isnan(zero[0].results[name]).any()]
        # a read that raced its write also reads the NaN fill: the race says it already
        if bad and kernels and kernels[0].name not in raced:
            findings.append(Finding(
                "uninitialized", kernels[0].name,
                _kernel_line(shell, kernels[0], _accumulates),
                f"{', '.join(f'`{name}`' for name in bad)} holds NaN when the memory the "
                "kernel was given starts as NaN, and none when it starts as zeros"))
    deterministic = all(r.error is None for r in zero) and _same(zero[0].results,
                                                                 zero[1].results)
    if orders and deterministic and not raced and any(r.error is None and not _same(r.results,
                                                                      zero[0].results)
                                        for r in orders) and kernels:
        changed = sorted(name for r in orders for name in r.results
                         if name in zero[0].results
                         and not _equal(r.results[name], zero[0].results[name]))
        kernel = kernels[0]
        findings.append(Finding(
            "order", kernel.name, _location(shell, kernel.filename, kernel.lineno),
            f"{', '.join(f'`{name}`' for name in dict.fromkeys(changed))} changed when the "
            "parallel grid dimensions ran in another order"))
    found = _out_of_bounds(shell, kept_error, kernels, session)
    if found is not None:
        findings.append(found)
    import jax

    jax.clear_caches()  # type: ignore[no-untyped-call]  # later cells compile as written
    checkup = Checkup(kernels=names, checks=have, findings=tuple(findings), not_run=lacking,
                      note=None if kernels else
                      "no Pallas kernel was built while the cell ran (a kernel built in an "
                      "earlier cell keeps its own mode: check the cell that builds it)")
    session.last_checkup = checkup
    if kept_error is not None and keep:
        raise kept_error
    return checkup


def _out_of_bounds(shell: Any, error: BaseException | None, kernels: list[_Kernel],
                   session: Session) -> Finding | None:
    """The finding of a read past the end that the kept run raised for, where it did: at the
    line its diagnosis places it (the hook diagnoses the error again when it shows it)."""
    if error is None:
        return None
    from jax_nbhelp.diagnosis.engine import diagnose
    from jax_nbhelp.diagnosis.line_values import exception_chain

    texts = []
    for link in exception_chain(error):
        with contextlib.suppress(Exception):
            texts.append(str(link))
    text = "\n".join(texts)
    if "Out-of-bounds" not in text:
        return None
    location = None
    with contextlib.suppress(Exception):
        diagnosis = diagnose(error, shell, session)
        location = diagnosis.location if diagnosis is not None else None
    return Finding("out_of_bounds", kernels[0].name if kernels else "?", location,
                   _first_line(text, "Out-of-bounds"))


def _first_line(text: str, mark: str) -> str:
    line = next((line for line in text.splitlines() if mark in line), mark)
    return line.strip()[:300]


# the first sentence of a finding's card: the kernel, then what was found
_SAID = {"race": "{kernel} has a race: {message}.",
         "uninitialized": "{kernel} reads memory it never wrote: {message}.",
         "out_of_bounds": "{kernel} reads past the end of a buffer: {message}.",
         "order": "{kernel}'s results depend on the order of a parallel grid dimension: "
                  "{message}."}


def as_diagnosis(finding: Finding, fixes: tuple[Fix, ...] = ()) -> Diagnosis:
    """A finding as a card: what was found, where, what it does on a chip, the way out
    (and ``fixes``, its mechanical fix where there is one: shell/checkup_actions.py)."""
    explanation = (_SAID[finding.kind].format(kernel=f"`{finding.kernel}`",
                                              message=finding.message)
                   + " " + WAY_OUT[finding.kind])
    return Diagnosis(code=CODES[finding.kind], name=f"checkup_{finding.kind}",
                     title=TITLES[finding.kind], explanation=explanation, why=WHY[finding.kind],
                     error=f"found by %%jax_nbhelp check: {finding.kind}",
                     location=finding.location, concerns_kernel=True, fixes=fixes)


def clean_line(checkup: Checkup) -> str:
    """What a checkup that found nothing says: which checks ran on which kernels."""
    return f"jax_nbhelp checkup: {checkup_said(checkup)}"


def checkup_said(checkup: Checkup) -> str:
    """``race, uninitialized, ... checked on matmul_kernel: nothing found.``"""
    if checkup.stopped:
        return f"{checkup.note}."
    if checkup.note and (not checkup.kernels or not checkup.checks):
        return f"nothing checked: {checkup.note}."
    ran = ", ".join(checkup.checks)
    lacking = (f"; not run (the interpreter that ran it has no such check): "
               f"{', '.join(checkup.not_run)}" if checkup.not_run else "")
    return f"{ran} checked on {', '.join(checkup.kernels)}: nothing found{lacking}."
