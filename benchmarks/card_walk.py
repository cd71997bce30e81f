"""The walk from the hook to the card: how often the code climbs back up a layer.

Run: python benchmarks/card_walk.py [--steps]
Loads jax_nbhelp in an IPython shell, makes the flagship error, and follows every call into
jax_nbhelp's own functions from the moment the hook diagnoses it until the card's bundle is
made (``sys.setprofile``). Each call is placed in its layer (ARCHITECTURE.md, "Imports run
one way"); consecutive calls in one module are one step. A climb is a step into a higher
layer than the step before: the code went down (say, into core/) and came back up to go on
(say, in show/), which is what a reader following the walk has to do too. Calls into
core/ from show/ are listed by name: with plain data below, the renderers should ask the
model for nothing but data (on the code issue 32 was filed against, show/ asked ten
functions of core/, eight of them for the model's sentences). Prints its figures (with
``--steps``, each step too: its layer, module and the functions it called); it asserts
nothing.
"""

from __future__ import annotations

import sys
from collections import Counter
from itertools import pairwise
from typing import Any

# the flagship's kernel helper, as the overhead benchmark runs it (this script's folder is
# on sys.path when it runs)
from hook_overhead import HELPER

# lowest first, as ARCHITECTURE.md's table (catalog_doc and the root wire, doctor drives)
LAYERS = ("core", "rewrite", "jaxapi", "diagnosis", "show", "fix", "catalog", "shell")


def _layer(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "jax_nbhelp" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in LAYERS else None


def main() -> None:
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    shell = InteractiveShell.instance()
    shell.run_cell("%load_ext jax_nbhelp")
    shell.run_cell("import jax, jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n"
                   "from jax.experimental.pallas import tpu as pltpu")
    shell.run_cell(HELPER)
    with capture_output():  # the first error warms JAX and the catalog up
        shell.run_cell("out = jax.jit(scaled)(jnp.ones((8, 128)))")

    steps: list[tuple[str, str]] = []  # (layer, module)
    called: list[list[str]] = []  # the functions each step called, in order
    asked: Counter[str] = Counter()
    calls = 0

    def profile(frame: Any, event: str, _arg: Any) -> None:
        nonlocal calls
        if event != "call":
            return
        module = frame.f_globals.get("__name__", "")
        layer = _layer(module)
        if layer is None:
            return
        calls += 1
        caller = frame.f_back
        caller_layer = _layer(caller.f_globals.get("__name__", "")) if caller else None
        if layer == "core" and caller_layer == "show":
            asked[f"{module.rsplit('.', 1)[-1]}.{frame.f_code.co_qualname}"] += 1
        if not steps or steps[-1][1] != module:
            steps.append((layer, module))
            called.append([])
        if frame.f_code.co_qualname not in called[-1]:
            called[-1].append(frame.f_code.co_qualname)

    from jax_nbhelp.shell import extension

    hook = extension._HOOKS[id(shell)][0]
    original = hook._diagnose

    def traced(value: BaseException) -> None:
        sys.setprofile(profile)
        try:
            original(value)
        finally:
            sys.setprofile(None)

    hook._diagnose = traced  # type: ignore[method-assign]
    try:
        with capture_output():
            shell.run_cell("out = jax.jit(scaled)(jnp.ones((8, 128)))")
    finally:
        del hook._diagnose

    order = {name: i for i, name in enumerate(LAYERS)}
    climbs = sum(1 for (low, _), (high, _) in pairwise(steps)
                 if order[high] > order[low])
    crossings = sum(1 for (a, _), (b, _) in pairwise(steps)
                    if {a, b} == {"show", "core"})
    render = [i for i, (layer, _) in enumerate(steps) if layer == "show"]
    shown = steps[render[0]:] if render else []
    render_climbs = sum(1 for (low, _), (high, _) in pairwise(shown)
                        if order[high] > order[low])
    layers = [layer for i, (layer, _) in enumerate(steps) if i == 0 or steps[i - 1][0] != layer]
    layer_climbs = sum(1 for low, high in pairwise(layers) if order[high] > order[low])
    print(f"the walk by layer: {' > '.join(layers)}")
    print(f"climbs back up, by layer (calls in one layer after another: one step): "
          f"{layer_climbs}")
    print(f"calls into jax_nbhelp: {calls}; steps (calls in one module after another: one "
          f"step): {len(steps)}")
    print(f"climbs back up a layer, hook to card: {climbs}")
    print(f"  of them once the card is being made (from the first step in show/): "
          f"{render_climbs}")
    print(f"crossings between show/ and core/: {crossings}")
    if "--steps" in sys.argv:
        for (layer, module), functions in zip(steps, called, strict=True):
            print(f"  {layer:9} {module.removeprefix('jax_nbhelp.')}: {', '.join(functions)}")
    print(f"what show/ asks of core/: {len(asked)} functions (function: calls):")
    for name, count in sorted(asked.items()):
        print(f"  {name}: {count}")


if __name__ == "__main__":
    main()
