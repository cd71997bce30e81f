"""How long a Pallas kernel takes in an interpreter, estimated before a fix runs it.

An interpreter runs a kernel one grid step at a time. Measured on a 2-core CPU with jax
0.10.2 (a blocked matmul, blocks of 64 to 256): TPU interpret mode spends 13-37 ms a step,
whatever the block (it simulates the chip's memory and runs each step through host
callbacks); plain ``interpret=True`` compiles the grid into one loop, about 1 ms a step
for blocks this size. Both spend one to two seconds compiling first. A tutorial's
4096 x 4096 x 4096 matmul with 128-wide blocks is 32,768 steps: minutes in TPU interpret
mode. The figures are rough on purpose (a factor of two either way); they are said as such.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from jax_nbhelp.diagnosis.kernel_facts import KernelFacts

# seconds a grid step takes, by interpreter ("hlo" is interpret=True)
_STEP_SECONDS = {"hlo": 0.001, "tpu": 0.02, "gpu": 0.02}
_COMPILE_SECONDS = 2.0
# Longer than this and the card says so before the fix runs, and the fix reports progress.
LONG_SECONDS = 30.0


@dataclass(frozen=True)
class Estimate:
    steps: int
    mode: str  # "hlo", "tpu" or "gpu"
    seconds: float

    @property
    def long(self) -> bool:
        return self.seconds >= LONG_SECONDS

    def sentence(self) -> str:
        return (f"The kernel runs {self.steps:,} grid step{'s' if self.steps != 1 else ''}; "
                f"interpreted, that takes roughly {duration(self.seconds)} on a small CPU "
                "machine.")

    def to_json(self) -> dict[str, object]:
        return {"steps": self.steps, "mode": self.mode, "seconds": round(self.seconds, 1),
                "long": self.long}


def estimate(facts: KernelFacts | None, mode: str) -> Estimate | None:
    """The cost of running the kernel ``facts`` describes under ``mode`` (None: unknown)."""
    if facts is None or not facts.grid or mode not in _STEP_SECONDS:
        return None
    steps = math.prod(facts.grid)
    return Estimate(steps, mode, _COMPILE_SECONDS + steps * _STEP_SECONDS[mode])


def duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def elapsed(seconds: float, found: Estimate | None) -> str:
    """How long a running fix has taken, against its estimate: "12 s of roughly 11 min"."""
    return f"{seconds:.0f} s" + (f" of roughly {duration(found.seconds)}" if found else "")


def long_note(found: Estimate) -> str:
    """What a diagnosis says before a long interpreted fix."""
    return (f"{found.sentence()} While a fix runs it, the card shows the time elapsed; "
            "interrupting the kernel (the stop button, or Ctrl-C) stops only the fix and puts "
            "back what it changed. A smaller input (fewer blocks in the grid) runs the same "
            "kernel code in a fraction of the time, enough to check it before a real run on "
            "a TPU or GPU.")
