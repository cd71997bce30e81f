"""What the kernel checkup costs: a checked cell against the same cell in plain TPU interpret
mode, in one IPython shell with jax_nbhelp loaded.

Run: python benchmarks/kernel_checkup.py [--repeat N]
For a blocked matmul (JAX's shipped TPU kernel) and a small accumulating kernel, prints the
median seconds of the cell under ``pltpu.force_tpu_interpret_mode()`` and under
``%%jax_nbhelp check``, and their ratio. The checkup runs the cell five times (two zero
fills, two other orders, the kept NaN-filled run with race detection), each traced anew, so
a ratio near 5 is its floor; race detection adds to the kept run. Asserts nothing.
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
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
