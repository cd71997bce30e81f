"""How much jax_nbhelp costs a notebook: import, load, and diagnosing the flagship error.

Run: python benchmarks/hook_overhead.py [--repeat N]
Prints its figures; it asserts nothing (targets are read off these numbers, not timed tests).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import tracemalloc

HELPER = '''\
def scaled(x):
    def body(ref):
        ref[...] = x * 2
        return ref[...] + 1
    return pl.run_scoped(body, pltpu.VMEM(x.shape, x.dtype), collective_axes="core")'''


def _import_seconds() -> float:
    code = "import time; t = time.perf_counter(); import jax_nbhelp; print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()

    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    imports = [_import_seconds() for _ in range(5)]
    print(f"import jax_nbhelp (fresh process): median {statistics.median(imports) * 1e3:.1f} ms")

    shell = InteractiveShell.instance(colors="nocolor")
    start = time.perf_counter()
    shell.run_line_magic("load_ext", "jax_nbhelp")
    print(f"%load_ext jax_nbhelp: {(time.perf_counter() - start) * 1e3:.1f} ms")
    # Unloaded while the error is first raised, so the next diagnosis is really the first.
    shell.run_line_magic("unload_ext", "jax_nbhelp")
    shell.run_cell("import jax, jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n"
                   "from jax.experimental.pallas import tpu as pltpu", store_history=True)
    shell.run_cell(HELPER, store_history=True)
    call = "out = jax.jit(scaled)(jnp.ones((8, 128)))"

    import jax_nbhelp
    from jax_nbhelp.diagnosis.engine import diagnose

    with capture_output():
        result = shell.run_cell(call, store_history=True)
    exc = result.error_in_exec
    assert exc is not None

    start = time.perf_counter()
    diagnose(exc, shell)
    first = (time.perf_counter() - start) * 1e3
    shell.run_line_magic("load_ext", "jax_nbhelp")
    print(f"first diagnosis (imports catalog and libcst): {first:.1f} ms")
    timings = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        diagnose(exc, shell)
        timings.append(time.perf_counter() - start)
    print(f"diagnosis, warm: median {statistics.median(timings) * 1e3:.1f} ms "
          f"over {args.repeat} runs")

    tracemalloc.start()
    diagnose(exc, shell)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"diagnosis peak Python memory: {peak / 1024:.0f} KiB")

    with_hook, without_hook = [], []
    for _ in range(max(3, args.repeat // 4)):
        with capture_output():
            start = time.perf_counter()
            shell.run_cell(call, store_history=True)
            with_hook.append(time.perf_counter() - start)
    shell.run_line_magic("unload_ext", "jax_nbhelp")
    for _ in range(max(3, args.repeat // 4)):
        with capture_output():
            start = time.perf_counter()
            shell.run_cell(call, store_history=True)
            without_hook.append(time.perf_counter() - start)
    print(f"failing cell, traceback + diagnosis: median {statistics.median(with_hook) * 1e3:.1f}"
          f" ms; traceback only: median {statistics.median(without_hook) * 1e3:.1f} ms")
    fix = jax_nbhelp.last()
    print(f"fixes offered: {[f.label for f in fix.fixes] if fix else []}")


if __name__ == "__main__":
    main()
