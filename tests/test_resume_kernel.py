"""Issue stories in a real Jupyter kernel: after a fix, the numbers AND the counters are as
if the corrected code had run once (ipykernel, driven by nbclient; one kernel for all)."""

from __future__ import annotations

import json

import nbformat
import pytest
from conftest import SCALED_HELPER
from nbclient import NotebookClient

pytestmark = pytest.mark.kernel

PRELUDE = """\
import json
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
key = jax.random.key(0)
LOADS = 0

def report(story, **values):
    print("REPORT", story, json.dumps(values))"""

# Each story: the failing cell, the fix to apply, and the report of what the kernel holds.
STORIES = {
    "step-before-the-call": (
        "step = 0\nstep += 1\nout = jax.jit(scaled)(jnp.full((8, 128), float(step)))",
        "1",
        "report('step-before-the-call', step=step, out=float(out[0, 0]))",
    ),
    "prng-split-before-the-call": (
        "key, sub = jax.random.split(key)\nx = jax.random.normal(sub, (8, 128))\n"
        "out = jax.jit(scaled)(x)",
        "1",
        "once, _ = jax.random.split(jax.random.key(0))\n"
        "report('prng-split-before-the-call',\n"
        "       key_split_once=bool((jax.random.key_data(key) == jax.random.key_data(once))"
        ".all()),\n"
        "       numbers=bool(jnp.allclose(out, 2 * x + 1)))",
    ),
    "work-in-the-defining-cell": (
        None,  # the defining cell itself is the setup below
        "2",
        "report('work-in-the-defining-cell', loads=LOADS, out=float(out[0, 0]))",
    ),
    "call-inside-a-for-loop": (
        "calls = 0\nresults = []\nfor i in range(3):\n    calls += 1\n"
        "    results.append(jax.jit(scaled)(jnp.full((8, 128), float(i))))",
        "1",
        "report('call-inside-a-for-loop', calls=calls, "
        "results=[float(r[0, 0]) for r in results])",
    ),
    "time-cell": (
        "%%time\nstep = 10\nstep += 1\nout = jax.jit(scaled)(jnp.full((8, 128), float(step)))",
        "1",
        "report('time-cell', step=step, out=float(out[0, 0]))",
    ),
    "magic-lines": (
        "%env JAX_NBHELP_STORY=1\nstep = 0\nstep += 1\n"
        "%time out = jax.jit(scaled)(jnp.full((8, 128), float(step)))",
        "2",
        "report('magic-lines', step=step, out=float(out[0, 0]))",
    ),
    # Run, fail, Run again: the rewrite re-defines the helper and resumes the last try; the
    # earlier try's call, which never completed, does not run a second time.
    "tried-again": (
        "step += 1\nout = jax.jit(scaled)(jnp.full((8, 128), float(step)))",
        "2",
        "report('tried-again', step=step, out=float(out[0, 0]), runs=RUNS)",
    ),
}

DEFINING_CELL = "LOADS += 1\nDATA = jnp.full((8, 128), 1.0)\n\n" + SCALED_HELPER.replace(
    "scaled", "scaled_here")
EXPECTED = {
    "step-before-the-call": {"step": 1, "out": 3.0},
    "prng-split-before-the-call": {"key_split_once": True, "numbers": True},
    "work-in-the-defining-cell": {"loads": 1, "out": 3.0},
    # The first iteration raised (calls was 1); the loop resumes in it, at the call.
    "call-inside-a-for-loop": {"calls": 3, "results": [1.0, 3.0, 5.0]},
    "time-cell": {"step": 11, "out": 23.0},
    "magic-lines": {"step": 1, "out": 3.0},
    "tried-again": {"step": 2, "out": 5.0,
                    "runs": "In [N], lines 1-5 (rewritten: def scaled); then In [N] from line 2"},
}


def _cells() -> list[str]:
    cells = ["%load_ext jax_nbhelp", PRELUDE]
    for story, (failing, fix, check) in STORIES.items():
        # A fresh helper per story: "Remove collective_axes" re-defines it.
        if story == "work-in-the-defining-cell":
            cells += [DEFINING_CELL, "out = jax.jit(scaled_here)(DATA)"]
        elif story == "tried-again":
            cells += ["step = 0", SCALED_HELPER, failing, failing,
                      # what the fix's preview said it runs, cell numbers left out
                      "import re, jax_nbhelp\nfrom jax_nbhelp.show.view import runs_sentence\n"
                      "RUNS = re.sub(r'In \\[\\d+\\]', 'In [N]', "
                      "runs_sentence(jax_nbhelp.last().fixes[1]))[6:-1]"]
        else:
            cells += [SCALED_HELPER, failing or ""]
        cells += [f"%jax_nbhelp fix {fix}", check]
    return cells


@pytest.fixture(scope="module")
def reports() -> dict[str, dict[str, object]]:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in _cells()]
    client = NotebookClient(nb, timeout=600, startup_timeout=300, kernel_name="python3",
                            allow_errors=True)
    client.execute()
    found: dict[str, dict[str, object]] = {}
    for cell in nb.cells:
        for output in cell.outputs:
            for line in output.get("text", "").splitlines():
                if line.startswith("REPORT "):
                    _, story, values = line.split(" ", 2)
                    found[story] = json.loads(values)
    fix_outputs = ["".join(o.get("text", "") for o in cell.outputs) for cell in nb.cells
                   if cell.source.startswith("%jax_nbhelp fix")]
    found["_fixes"] = {"outputs": fix_outputs}
    return found


@pytest.mark.parametrize("story", list(STORIES))
def test_story_after_the_fix(reports: dict[str, dict[str, object]], story: str) -> None:
    assert all("Fixed:" in text for text in reports["_fixes"]["outputs"]), \
        reports["_fixes"]["outputs"]
    assert reports.get(story) == EXPECTED[story]
