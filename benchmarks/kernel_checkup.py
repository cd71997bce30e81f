"""What the kernel checkup costs: a checked cell against the same cell in plain TPU interpret
mode, in one IPython shell with jax_nbhelp loaded.

Run: python benchmarks/kernel_checkup.py [--repeat N] [--catalog]
For a blocked matmul (JAX's shipped TPU kernel) and a small accumulating kernel, prints the
median seconds of the cell under ``pltpu.force_tpu_interpret_mode()`` and under
``%%jax_nbhelp check``, and their ratio. The checkup runs the cell five times (two zero
fills, two other orders, the kept NaN-filled run with race detection), each traced anew, so
a ratio near 5 is its floor; race detection adds to the kept run. ``--catalog`` instead
runs the last cell of every catalog example's fixed form that builds a Pallas TPU kernel
under the checkup and prints what it found: every finding there would be a false one.
Asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import time

CELLS = {
    "matmul 512^3, blocks of 128": (
        "from jax.experimental.pallas.ops.tpu import matmul as mm\n"
        "a = jnp.ones((512, 512))",
        "out = mm.matmul(a, a, block_shape=(128, 128))"),
    "accumulate 4 blocks": (
        "def total_kernel(x_ref, o_ref):\n"
        "    @pl.when(pl.program_id(0) == 0)\n"
        "    def _():\n"
        "        o_ref[...] = jnp.zeros_like(o_ref)\n"
        "    o_ref[...] += x_ref[...]\n"
        "def total(x):\n"
        "    return pl.pallas_call(total_kernel, grid=(4,),\n"
        "        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],\n"
        "        out_specs=pl.BlockSpec((8, 128), lambda i: (0, 0)),\n"
        "        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))(x)\n"
        "x = jnp.ones((32, 128))",
        "out = total(x)"),
}


def catalog() -> None:
    """The catalog's kernel examples, fixed, under the checkup."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    import jax_nbhelp
    from jax_nbhelp.catalog._example import PRELUDE, unmet
    from jax_nbhelp.diagnosis.engine import entries

    shell = InteractiveShell.instance(colors="nocolor")
    counts = {"examples": 0, "kernels checked": 0, "findings": 0, "errors": 0}
    for entry in entries():
        for index, example in enumerate(entry.EXAMPLES):
            cells = list(example.fixed)
            if unmet(example) or not cells or not any(
                    word in cell for cell in cells for word in ("pallas_call", "pl.kernel",
                                                                "core_map")):
                continue
            if any("plgpu" in cell or "mosaic_gpu" in cell for cell in cells):
                continue  # GPU kernels: the checkup is the TPU interpreter's
            shell.reset(new_session=True)
            with capture_output():
                shell.run_cell("%load_ext jax_nbhelp", store_history=True)
                shell.run_cell(PRELUDE, store_history=True)
                for cell in cells[:-1]:
                    shell.run_cell(cell, store_history=True)
                result = shell.run_cell("%%jax_nbhelp check\n" + cells[-1], store_history=True)
            checkup = jax_nbhelp.last_checkup()
            counts["examples"] += 1
            counts["kernels checked"] += len(checkup.kernels) if checkup else 0
            counts["errors"] += result.error_in_exec is not None
            found = list(checkup.findings) if checkup else []
            counts["findings"] += len(found)
            print(f"{entry.CODE}-{index}: kernels {list(checkup.kernels) if checkup else []}, "
                  f"findings {[f.kind for f in found]}"
                  + (f", error {type(result.error_in_exec).__name__}"
                     if result.error_in_exec else ""))
            shell.run_line_magic("unload_ext", "jax_nbhelp")
    print(", ".join(f"{name} {count}" for name, count in counts.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--catalog", action="store_true")
    args = parser.parse_args()
    if args.catalog:
        catalog()
        return
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    shell = InteractiveShell.instance(colors="nocolor")
    with capture_output():
        shell.run_cell("%load_ext jax_nbhelp")
        shell.run_cell("import jax, jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n"
                       "from jax.experimental.pallas import tpu as pltpu")

    def timed(cell: str) -> float:
        times = []
        for _ in range(args.repeat):
            shell.run_cell("jax.clear_caches()")
            start = time.perf_counter()
            with capture_output():
                result = shell.run_cell(cell)
            times.append(time.perf_counter() - start)
            assert result.error_in_exec is None, result.error_in_exec
        return statistics.median(times)

    print(f"{'cell':32} {'interpreted':>12} {'checked':>10} {'ratio':>7}")
    for name, (setup, cell) in CELLS.items():
        with capture_output():
            shell.run_cell(setup)
        plain = timed("with pltpu.force_tpu_interpret_mode():\n    "
                      + cell.replace("\n", "\n    "))
        checked = timed("%%jax_nbhelp check\n" + cell)
        print(f"{name:32} {plain:11.2f}s {checked:9.2f}s {checked / plain:6.1f}x")


if __name__ == "__main__":
    main()
