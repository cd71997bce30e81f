"""The estimate of an interpreted fix beside the time it really takes, for kernels of
several sizes, in both interpreters: ``python benchmarks/interpret_estimates.py``.

Each kernel is the blocked matmul of the Pallas TPU tutorials (an f32 accumulator in VMEM
scratch), first compiled for this CPU as written (``interpret=False``) so that JAX raises
the error a user sees; jax_nbhelp reads the kernel from that error (``kernel_facts``) and
estimates its cost (``interpret_cost.estimate``), as a diagnosis does. Then the kernel runs
in the interpreter as a fix runs it (jax_nbhelp's own interpret params, steps counted), and
the table gives, per kernel:

- ``estimate``: before any run, from the built-in figures;
- ``calibrated``: the same after the previous kernel of that interpreter calibrated the
  session (``interpret_cost.calibrate``), what the next diagnosis of the session says;
- ``at 20%``: the whole time as the running fix predicts it once a fifth of its grid
  steps ran (elapsed + time left; TPU interpret mode counts steps, ``interpret=True``
  does not, so it repeats the estimate there);
- ``real``: the time the run took, compiling included.

``--quick`` runs the smaller half of the kernels.
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

from jax_nbhelp.core.session import InterpretSpeed
from jax_nbhelp.diagnosis import kernel_facts
from jax_nbhelp.jaxapi import grid_progress, interpret_cost, interpret_modes

# (interpreter, array size, bm, bk, bn, dtype); the first of each interpreter calibrates
CASES = (
    ("hlo", 1024, 128, 128, 128, "float32"),
    ("hlo", 2048, 256, 256, 256, "float32"),
    ("hlo", 2048, 128, 128, 128, "float32"),
    ("hlo", 4096, 512, 1024, 1024, "bfloat16"),
    ("tpu", 512, 64, 64, 64, "float32"),
    ("tpu", 1024, 128, 128, 128, "float32"),
    ("tpu", 2048, 256, 256, 256, "float32"),
    ("tpu", 4096, 512, 1024, 1024, "bfloat16"),
)


def _body(x_ref: Any, y_ref: Any, o_ref: Any, acc_ref: Any) -> None:
    @pl.when(pl.program_id(2) == 0)
    def _() -> None:
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)

    @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)
    def _() -> None:
        o_ref[...] = acc_ref[...].astype(o_ref.dtype)


def _matmul(n: int, bm: int, bk: int, bn: int, dtype: Any, interpret: Any) -> Any:
    return pl.pallas_call(
        _body,
        out_shape=jax.ShapeDtypeStruct((n, n), dtype),
        grid=(n // bm, n // bn, n // bk),
        in_specs=[pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)),
                  pl.BlockSpec((bk, bn), lambda i, j, k: (k, j))],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, k: (i, j)),
        scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)],
        interpret=interpret,
    )


# what the runs so far taught, as a session learns it from its interpreted fixes
_SPEED = InterpretSpeed()


def _facts(n: int, bm: int, bk: int, bn: int, dtype: Any) -> Any:
    x = jnp.ones((n, n), dtype)
    try:
        jax.jit(_matmul(n, bm, bk, bn, dtype, False))(x, x)
    except Exception as exc:  # "Only interpret mode is supported on CPU backend."
        return kernel_facts.from_exception(exc)
    raise SystemExit("the kernel compiled for this machine: run this on a CPU")


def _run(case: tuple[Any, ...]) -> dict[str, Any]:
    mode, n, bm, bk, bn, dtype_name = case
    dtype = jnp.dtype(dtype_name)
    facts = _facts(n, bm, bk, bn, dtype)
    fresh = interpret_cost.estimate(facts, mode, counted=mode == "tpu")
    found = interpret_cost.estimate(facts, mode, _SPEED, counted=mode == "tpu")
    assert fresh is not None
    assert found is not None
    x = jnp.ones((n, n), dtype)
    kernel = jax.jit(_matmul(n, bm, bk, bn, dtype, interpret_modes.params_value(mode)))
    predicted: list[float] = []
    done = threading.Event()
    with grid_progress.counting() as counter:

        def watch() -> None:
            while not done.wait(0.2):
                now = interpret_cost.progress(found, counter.elapsed(), counter.steps,
                                              counter.first_at, counter.last_at)
                if not predicted and ((now.fraction or 0) >= 0.2 if now.steps is not None
                                      else now.seconds >= 0.2 * found.seconds):
                    left = now.seconds_left if now.seconds_left is not None else 0.0
                    predicted.append(now.seconds + left)

        thread = threading.Thread(target=watch, daemon=True)
        thread.start()
        kernel(x, x).block_until_ready()
        real = counter.elapsed()
        done.set()
    interpret_cost.calibrate(_SPEED, found, real, counter.steps, counter.first_at,
                             counter.last_at)
    return {"case": case, "steps": found.steps, "fresh": fresh.seconds,
            "calibrated": found.seconds if found.calibrated else None,
            "at20": predicted[0] if predicted else None, "real": real,
            "counted": counter.steps}


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the smaller kernels only")
    args = parser.parse_args()
    cases = [case for case in CASES if not args.quick or (case[1] <= 2048 and case[2] <= 256)]
    print(f"jax {jax.__version__}, {jax.default_backend()} backend")
    print("| interpreter | kernel | grid steps | estimate | calibrated | at 20% | real | "
          "real / estimate |")
    print("|---|---|---|---|---|---|---|---|")
    for case in cases:
        row = _run(case)
        mode, n, bm, bk, bn, dtype = case
        best = row["calibrated"] or row["fresh"]
        name = interpret_modes.describe(mode).name
        print(f"| {name} | {n}² {dtype}, blocks {bm}x{bk}x{bn} | {row['steps']:,} | "
              f"{_seconds(row['fresh'])} | {_seconds(row['calibrated'])} | "
              f"{_seconds(row['at20'])} | {_seconds(row['real'])} | "
              f"{row['real'] / best:.2f} |", flush=True)
    print("\n'calibrated': after the kernel above it in the same interpreter; "
          "'real / estimate' uses the calibrated estimate where there is one.")


if __name__ == "__main__":
    main()
