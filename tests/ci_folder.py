"""A course's folder of notebooks as CI meets it: one clean, one Pallas kernel on a CPU, one
that needs a package this machine lacks, a lesson whose failing cell is tagged, an everyday
error, and a notebook that asks to be skipped. ``EXPECTED`` is what each should come to."""

from __future__ import annotations

from pathlib import Path

import nbformat

_JAX = "import jax\nimport jax.numpy as jnp"

NOTEBOOKS: dict[str, list[tuple[str, list[str]]]] = {
    "clean": [(_JAX, []), ("x = jnp.arange(4.0)\nprint(float(x.sum()))", [])],
    "kernel": [
        (_JAX + "\nfrom jax.experimental import pallas as pl", []),
        ("def add_one(x_ref, o_ref):\n    o_ref[...] = x_ref[...] + 1.0\n\n"
         "add = pl.pallas_call(add_one, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))",
         []),
        ("y = add(jnp.zeros((8, 128), jnp.float32))\nprint(float(y.sum()))", []),
    ],
    "missing": [
        (_JAX, []),
        ("import tensorflow_datasets as tfds", []),
        ("ds = tfds.load('mnist')", []),
        ("print(jnp.ones(2).sum())", []),
    ],
    "lesson": [
        (_JAX, []),
        ("x = jnp.zeros(3)\nx[0] = 1.0", ["raises-exception"]),
        ("x = x.at[0].set(1.0)\nprint(x)", []),
        ("print('not run in CI')", ["skip-execution"]),
    ],
    "everyday": [
        (_JAX, []),
        ("x = jnp.zeros(3)\nx[0] = 1.0\nprint(x)", []),
    ],
}
SKIPPED = "needs_a_tpu"  # a notebook whose metadata says skip

# notebook -> (passes, the diagnosis code of its first failure that is not expected, and
# whether that diagnosis recommends a fix)
EXPECTED: dict[str, tuple[bool, str | None, bool]] = {
    "clean": (True, None, False),
    "kernel": (False, "JNH201", True),
    "missing": (False, "JNH611", False),  # named, with its pip name; installing is the user's
    "lesson": (True, None, False),
    "everyday": (False, "JNH501", True),
}


def make(folder: Path) -> Path:
    """Write the notebooks into ``folder`` (a course folder, one notebook in a subfolder)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, cells in NOTEBOOKS.items():
        notebook = nbformat.v4.new_notebook()
        notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                           "language": "python"}
        for source, tags in cells:
            cell = nbformat.v4.new_code_cell(source)
            if tags:
                cell.metadata["tags"] = tags
            notebook.cells.append(cell)
        target = folder / ("week2" if name == "everyday" else "") / f"{name}.ipynb"
        target.parent.mkdir(exist_ok=True)
        nbformat.write(notebook, target)
    skipped = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("jax.devices('tpu')")])
    skipped.metadata["nbhelp"] = {"skip": "needs a TPU runtime"}
    nbformat.write(skipped, folder / f"{SKIPPED}.ipynb")
    return folder
