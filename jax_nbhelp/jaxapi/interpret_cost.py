"""How long a Pallas kernel takes in an interpreter: estimated before a fix runs it, corrected
while it runs, and calibrated by what the last run really took.

An interpreter runs a kernel one grid step at a time. Measured on a 2-core CPU with jax
0.10.2 (blocked matmuls, f32 and bf16, blocks of 64 to 1024, arrays of 256 to 4096):

- a step costs a fixed overhead: about 0.1 ms under ``interpret=True`` (the grid is one
  compiled loop), 6 to 9 ms in TPU interpret mode (each step goes through a dozen host
  callbacks that simulate the chip's memory);
- plus the step's own work: a matmul block runs at about 30 GFLOP/s in either interpreter
  (a 512 x 1024 x 1024 block is about 36 ms a step);
- plus the whole arrays, which the HLO interpreter copies every step: about 0.1 ms a MB
  (0.03 ms in TPU interpret mode);
- and compiling first: about 0.4 s for ``interpret=True``, a second in TPU interpret mode.

``benchmarks/interpret_estimates.py`` prints these estimates beside the real times. Other
machines differ, so the first interpreted fix calibrates the rest of the session
(``calibrate``: a fix that ran twice as long as estimated doubles the next estimate), and a
running fix corrects its time left from the grid steps the interpreter has counted
(``progress``). The figures are said as rough.
"""

from __future__ import annotations

import math

from jax_nbhelp.core.model import Estimate, FixProgress
from jax_nbhelp.core.session import InterpretSpeed
from jax_nbhelp.core.units import duration
from jax_nbhelp.diagnosis.kernel_facts import KernelFacts

# seconds a grid step costs by interpreter ("hlo" is interpret=True), before its work
_STEP_SECONDS = {"hlo": 0.0001, "tpu": 0.008, "gpu": 0.008}
# seconds per MB of the kernel's whole arrays, each step
_ARRAY_SECONDS_PER_MB = {"hlo": 0.0001, "tpu": 0.00003, "gpu": 0.00003}
_FLOPS = 30e9  # a matmul block's speed inside an interpreter
_COMPILE_SECONDS = {"hlo": 0.4, "tpu": 1.0, "gpu": 1.0}
# a calibration outside these bounds is a cell doing other work, not the machine's speed
_SPEED_BOUNDS = (0.05, 20.0)


def sentence(found: Estimate) -> str:
    """The estimate as a fix's summary says it."""
    where = ("on this machine, going by the last interpreted run" if found.calibrated
             else "on a small CPU machine")
    return (f"The kernel runs {found.steps:,} grid step{'s' if found.steps != 1 else ''}; "
            f"interpreted, that takes roughly {duration(found.seconds)} {where}.")


def _dot_flops(shapes: tuple[tuple[int, ...], ...]) -> int:
    """The flops of the matrix product two of the blocks form ((m, k) by (k, n), or by
    (n, k) transposed), the work a matmul-like step does; 0 without one. A product whose
    (m, n) is a third block (the output's) is the kernel's; else the largest one."""
    best = fitting = 0
    blocks = list(enumerate(shape for shape in shapes if len(shape) >= 2))
    for i, left in blocks:
        for j, right in blocks:
            size = math.prod(left)
            for inner, outer in ((right[-2], right[-1]), (right[-1], right[-2])):
                if left[-1] != inner:
                    continue
                best = max(best, size * outer)
                if any(k not in (i, j) and out[-2:] == (left[-2], outer) for k, out in blocks):
                    fitting = max(fitting, size * outer)
    return 2 * (fitting or best)


def _raw_step_seconds(facts: KernelFacts, mode: str) -> float:
    work = _dot_flops(facts.block_shapes) / _FLOPS if "dot_general" in facts.primitives else 0.0
    arrays = facts.array_bytes / 1e6 * _ARRAY_SECONDS_PER_MB[mode]
    return _STEP_SECONDS[mode] + work + arrays


def estimate(facts: KernelFacts | None, mode: str, speed: InterpretSpeed | None = None, *,
             counted: bool = False) -> Estimate | None:
    """The cost of running the kernel ``facts`` describes under ``mode`` (None: unknown),
    corrected by how fast this session ran interpreted fixes before (``speed``);
    ``counted``: the run will report its grid steps."""
    if facts is None or not facts.grid or mode not in _STEP_SECONDS:
        return None
    steps = math.prod(facts.grid)
    factor = speed.factor(mode) if speed is not None else None
    step = _raw_step_seconds(facts, mode) * (factor or 1.0)
    compile_seconds = _COMPILE_SECONDS[mode] * (factor or 1.0)
    return Estimate(steps, mode, compile_seconds + steps * step, step, factor is not None,
                    counted)


def progress(found: Estimate | None, seconds: float, steps: int = 0,
             first_at: float | None = None, last_at: float | None = None) -> FixProgress:
    """How far a fix is after ``seconds``: ``steps`` grid steps counted so far (0: none
    counted), the first and the latest of them ``first_at`` / ``last_at`` seconds into it."""
    total = found.steps if found is not None else None
    if steps and total and steps <= total:
        left = None
        if steps >= 2 and first_at is not None and last_at is not None and last_at > first_at:
            # the steps so far say how fast this run goes: the estimate no longer matters
            rate = (last_at - first_at) / (steps - 1)
            left = max(0.0, (total - steps + 1) * rate - (seconds - last_at))
        elif found is not None and seconds < found.seconds:
            left = found.seconds - seconds
        text = f"grid step {steps:,} of {total:,} · {duration(seconds)}"
        return FixProgress(seconds, steps, total, left, steps / total,
                           text + (f" · about {duration(left)} left" if left is not None else ""))
    if steps:  # more steps than one call of the diagnosed kernel: the cell runs others too
        return FixProgress(seconds, steps, None, None, None,
                           f"{steps:,} grid steps · {duration(seconds)}")
    if found is None:
        return FixProgress(seconds, None, None, None, None, duration(seconds))
    if found.counted:  # its steps will come: a bar from the clock now would jump back then
        return FixProgress(seconds, 0, total, None, None,
                           f"compiling the kernel · {duration(seconds)} of roughly "
                           f"{duration(found.seconds)}")
    if seconds < found.seconds:
        left = found.seconds - seconds
        return FixProgress(seconds, None, total, left, seconds / found.seconds,
                           f"{duration(seconds)} of roughly {duration(found.seconds)} · "
                           f"about {duration(left)} left")
    return FixProgress(seconds, None, total, None, None,
                       f"{duration(seconds)}, longer than the roughly "
                       f"{duration(found.seconds)} estimated")


def calibrate(speed: InterpretSpeed, found: Estimate | None, seconds: float, steps: int = 0,
              first_at: float | None = None, last_at: float | None = None) -> None:
    """Remember in ``speed`` how fast this machine ran an interpreted fix, to correct later
    estimates.

    Counted steps give the time a step really takes; without them, a fix that ran its
    kernel to the end gives its whole time (call it only then)."""
    if found is None or found.step_seconds <= 0:
        return
    old = speed.factor(found.mode) or 1.0
    raw_step = found.step_seconds / old
    if steps >= 3 and first_at is not None and last_at is not None and last_at > first_at:
        factor = (last_at - first_at) / (steps - 1) / raw_step
    elif not steps and found.steps * raw_step >= 2 * _COMPILE_SECONDS[found.mode]:
        # (a short run says how fast this machine compiles, not how fast it steps)
        raw_total = _COMPILE_SECONDS[found.mode] + found.steps * raw_step
        factor = seconds / raw_total
    else:
        return
    low, high = _SPEED_BOUNDS
    speed.learn(found.mode, min(high, max(low, factor)))


def long_note(found: Estimate) -> str:
    """What a diagnosis says before a long interpreted fix."""
    counted = ("grid steps done and the time left" if found.mode == "tpu"
               else "the time elapsed against this estimate")
    return (f"{sentence(found)} While a fix runs it, the card shows the {counted}; "
            "interrupting the kernel (the stop button, or Ctrl-C) stops only the fix and puts "
            "back what it changed. A smaller input (fewer blocks in the grid) runs the same "
            "kernel code in a fraction of the time, enough to check it before a real run on "
            "a TPU or GPU.")
