"""What a diagnosis of the everyday errors costs: the first-hour errors of a JAX learner, each
failing in a fresh IPython process with jax_nbhelp loaded, timed where the hook runs.

For each error, in its own process: the set-up cells, then the failing cell once (the
first diagnosis of that error, which parses the cell for its rewrite and imports the
entries its message concerns) and five more times (a later diagnosis: the median). The
same cells run in a process without jax_nbhelp give the failing cell's own time. Medians of
``--repeat`` processes.

    python benchmarks/everyday_errors.py [--repeat 3] [--only item-assignment ...]

Prints its figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timed_hook import TIMED_HOOK

ROOT = Path(__file__).resolve().parent.parent

_IMPORTS = "import jax, jax.numpy as jnp\nfrom jax import lax"
ERRORS = {
    "item-assignment": ("grid = jnp.zeros(5)", "grid[2] = 7.0"),
    "list-to-mean": ("", "m = jnp.mean([0.5, 0.25])"),
    "grad-at-int": ("def sq(x):\n    return x ** 2", "g = jax.grad(sq)(3)"),
    "grad-of-vector": ("def cube(x):\n    return x ** 3", "g = jax.grad(cube)(jnp.arange(3.0))"),
    "broadcast": ("a = jnp.ones((4, 3))\nb = jnp.ones(4)", "c = a + b"),
    "matmul": ("a = jnp.ones((4, 5))\nb = jnp.ones((3, 5))", "c = a @ b"),
    "lax-dtypes": ("n = jnp.arange(3)\nw = jnp.ones(3)", "t = lax.add(n, w)"),
    "jit-method": ("class S:\n    def __init__(self, k):\n        self.k = k\n\n"
                   "    @jax.jit\n    def f(self, x):\n        return self.k * x\n\ns = S(2.0)",
                   "y = s.f(1.0)"),
    "tree-structures": ("p = {'w': 1.0, 'b': 2.0}\nq = {'w': 1.0, 'c': 2.0}",
                        "r = jax.tree.map(lambda u, v: u + v, p, q)"),
}

PROCESS = textwrap.dedent('''
    import json, statistics, sys, time
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    shell = InteractiveShell.instance(colors="nocolor")
    with_extension = sys.argv[1] == "with"
    setup, failing = json.loads(sys.argv[2])
    own = []

    def run(source):
        own.clear()
        with capture_output():
            start = time.perf_counter()
            result = shell.run_cell(source, store_history=True)
            elapsed = time.perf_counter() - start
        return elapsed * 1000, sum(own)

    TIMED_HOOK
    run(IMPORTS)
    if setup:
        run(setup)
    first = run(failing)
    later = [run(failing) for _ in range(5)]
    print("FIGURES", json.dumps({"first": first, "later": [
        statistics.median(t[0] for t in later), statistics.median(t[1] for t in later)]}))
''').replace("TIMED_HOOK\n", TIMED_HOOK)


def _measure(mode: str, setup: str, failing: str) -> dict[str, list[float]]:
    script = PROCESS.replace("IMPORTS", repr(_IMPORTS))
    proc = subprocess.run([sys.executable, "-c", script, mode, json.dumps([setup, failing])],
                          capture_output=True, text=True, check=True, cwd=ROOT, timeout=600)
    line = next(line for line in proc.stdout.splitlines() if line.startswith("FIGURES "))
    figures: dict[str, list[float]] = json.loads(line.removeprefix("FIGURES "))
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=[], choices=sorted(ERRORS))
    args = parser.parse_args()
    names = args.only or list(ERRORS)
    print(f"median of {args.repeat} fresh processes each, milliseconds\n")
    print("| error | failing cell without jax_nbhelp (first, later) | jax_nbhelp's own time, "
          "first error | later error |")
    print("|---|---|---|---|")
    for name in names:
        setup, failing = ERRORS[name]
        runs = {mode: [_measure(mode, setup, failing) for _ in range(args.repeat)]
                for mode in ("without", "with")}
        cell_first = statistics.median(r["first"][0] for r in runs["without"])
        cell_later = statistics.median(r["later"][0] for r in runs["without"])
        own_first = statistics.median(r["first"][1] for r in runs["with"])
        own_later = statistics.median(r["later"][1] for r in runs["with"])
        print(f"| {name} | {cell_first:.0f} ms, {cell_later:.1f} ms | {own_first:.1f} ms | "
              f"{own_later:.1f} ms |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
