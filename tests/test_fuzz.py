"""Hostile failing cells, seeded: jax_nbhelp never loses a traceback, never drops its hook,
never claims an error JAX did not raise, and says nothing about a user's broken exception.

1,200 cells of ``hostile_cells`` in a real IPython shell with jax_nbhelp loaded and JAX
imported; ``benchmarks/fuzz.py`` runs 10,000, with forged bundles and interrupted fixes.
Each cell gets a generous time bound, only to catch a hang.
"""

from __future__ import annotations

import random
import time

import pytest
from conftest import Notebook
from hostile_cells import PRELUDE, hostile_cell, problems

CELLS = 1200
HANG = 60.0  # seconds: a hang guard, not a performance figure


def test_hostile_cells(loaded: Notebook) -> None:
    loaded.ok(PRELUDE)
    handler = loaded.shell.CustomTB
    rng = random.Random(20261201)
    kinds = {False: 0, True: 0}
    for number in range(CELLS):
        source, shown, by_jax = hostile_cell(rng)
        start = time.monotonic()
        out = loaded.run(source)
        elapsed = time.monotonic() - start
        where = f"cell {number}: {source[:120]!r}"
        found = problems(out, shown, loaded.shell.CustomTB is handler, by_jax)
        assert found == [], f"{where}: {found}\n{out.stderr[-500:]}"
        assert elapsed < HANG, f"{where}: took {elapsed:.0f} s"
        kinds[by_jax] += 1
    assert kinds[True] > 50
    assert kinds[False] > 900


@pytest.mark.parametrize("cell", [
    "raise KeyError('Only interpret mode is supported on CPU backend.')",
    "raise IndexError('Only interpret mode is supported on CPU backend.')",
    "raise ValueError('Only interpret mode is supported on CPU backend.')",
    # Raised by native code, but not JAX's: the call site names int.
    "int('Only interpret mode is supported on CPU backend.')",
])
def test_a_user_error_with_jax_text_is_not_claimed(loaded: Notebook, cell: str) -> None:
    loaded.ok("import jax")
    out = loaded.run(cell)
    assert out.error is not None
    assert out.diagnoses == []
    assert out.stderr == ""
