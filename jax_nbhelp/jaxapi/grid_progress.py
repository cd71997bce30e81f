"""Grid steps counted while a fix runs a kernel in TPU interpret mode.

TPU interpret mode calls ``InterpretParams.grid_point_recorder`` once per grid point, in
the order it runs them, through an ``io_callback``. jax_nbhelp's own interpret params carry
``record`` there (``with_recorder``), and a fix counts the steps it runs with ``counting()``.

The hook's signature moved: up to jax 0.9 it was ``recorder(grid_point, core_index)`` with
no result; from 0.10 it is ``recorder(token, grid_point, core_index)`` and must return the
token it was given (the interpreter threads it through to keep its callbacks in order).
``record`` takes both. With no fix counting, ``record`` only hands the token back, so a
kernel built under "from now on" costs one more host callback per step, against the
dozen TPU interpret mode already makes.

HLO interpret mode (``interpret=True``) compiles the grid into one loop, and GPU interpret
mode has no such hook: their progress follows the time estimate (``interpret_cost``).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_FIELD = "grid_point_recorder"


class StepCounter:
    """Grid steps run since the fix started, and when the first and the latest ran, in
    seconds since it started (what the progress and the calibration read)."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.steps = 0
        self.first_at: float | None = None
        self.last_at: float | None = None
        self._lock = threading.Lock()

    def tick(self) -> None:
        now = self.elapsed()
        with self._lock:
            self.steps += 1
            if self.first_at is None:
                self.first_at = now
            self.last_at = now

    def elapsed(self) -> float:
        return time.perf_counter() - self.started


_ACTIVE: list[StepCounter] = []


def record(*args: Any) -> Any:
    """The per-step hook: counts a step for the fix that is running, if any."""
    if _ACTIVE:
        _ACTIVE[-1].tick()
    # 0.10+: (token, grid_point, core) -> token; before: (grid_point, core) -> nothing
    return args[0] if len(args) == 3 else ()


@contextmanager
def counting() -> Iterator[StepCounter]:
    """Within the block, the grid steps of kernels carrying ``record`` are counted."""
    counter = StepCounter()
    _ACTIVE.append(counter)
    try:
        yield counter
    finally:
        _ACTIVE.remove(counter)


def with_recorder(params: Any) -> Any:
    """``params`` (interpret params) with ``record`` as their grid point recorder, when they
    have the field and it is not set; else ``params`` as they are."""
    try:
        names = {f.name for f in dataclasses.fields(params)}
    except TypeError:
        return params
    if _FIELD not in names or getattr(params, _FIELD, None) is not None:
        return params
    try:
        return dataclasses.replace(params, **{_FIELD: record})
    except Exception:  # a JAX whose params reject it: no step counts, never a crash
        return params

