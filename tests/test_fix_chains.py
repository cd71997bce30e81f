"""A chain of fixes keeps every earlier fix: when a fix's run raises a new error (and is
undone), a fix for that error starts from the code as the earlier fix left it, runs it, and
its cells say what all of them changed against what the user typed.

The chain here is a notebook written for an older JAX: a Pallas kernel reads ``pl.load`` (and
an old memory-space name), and ``interpret=True`` is missing on a CPU runtime.
"""

from __future__ import annotations

import pytest
from conftest import Notebook

import jax_nbhelp

_OLD_KERNEL = '''\
def add_one_kernel(x_ref, o_ref):
    o_ref[...] = pl.load(x_ref, (slice(None),)) + 1

add_one = pl.pallas_call(add_one_kernel,
                         out_shape=jax.ShapeDtypeStruct((8,), jnp.float32))'''


@pytest.fixture
def old_kernel(loaded: Notebook) -> Notebook:
    from jax.experimental import pallas as pl

    if hasattr(pl, "load"):
        pytest.skip("this JAX still has pl.load")
    loaded.ok(_OLD_KERNEL)
    failed = loaded.run("out = add_one(jnp.zeros(8))")
    assert [d["code"] for d in failed.diagnoses] == ["JNH210"]
    first = jax_nbhelp.last()
    assert first is not None
    result = next(f for f in first.fixes if f.label == "Index the refs").apply()
    # the rewritten kernel runs, and fails on the CPU: undone, and diagnosed
    assert not result.ok
    assert jax_nbhelp.last() is not None
    assert jax_nbhelp.last().code == "JNH201"  # type: ignore[union-attr]
    return loaded


def test_the_first_fix_says_the_next_fixes_start_from_its_code(loaded: Notebook) -> None:
    from jax.experimental import pallas as pl

    from jax_nbhelp.show.card.html import outcome_html
    from jax_nbhelp.show.view import outcome_view

    if hasattr(pl, "load"):
        pytest.skip("this JAX still has pl.load")
    loaded.ok(_OLD_KERNEL)
    loaded.run("out = add_one(jnp.zeros(8))")
    first = jax_nbhelp.last()
    assert first is not None
    fix = next(f for f in first.fixes if f.label == "Index the refs")
    result = fix.apply()
    assert result.diagnosis is not None
    shown = outcome_html(outcome_view(fix, result))
    assert "✗ Not fixed." in shown
    assert "Its fixes start from your code as “Index the refs” rewrote it." in shown


def test_a_chain_that_fails_at_its_end_puts_back_everything(loaded: Notebook) -> None:
    """The last fix of a chain runs the first's rewrite too; when that run fails, the kernel
    holds what it held before either fix, and the user's cell is as typed."""
    from jax.experimental import pallas as pl

    if hasattr(pl, "load"):
        pytest.skip("this JAX still has pl.load")
    loaded.ok(_OLD_KERNEL)
    before = {name: loaded.shell.user_ns[name] for name in ("add_one_kernel", "add_one")}
    # the cell's next line fails whatever runs the kernel: 8 values do not make 3
    loaded.run("out = add_one(jnp.zeros(8))\nrows = out.reshape(3, -1)")
    first = jax_nbhelp.last()
    assert first is not None
    assert first.code == "JNH210"
    assert not next(f for f in first.fixes if f.label == "Index the refs").apply().ok
    second = jax_nbhelp.last()
    assert second is not None
    assert second.code == "JNH201"
    result = next(f for f in second.fixes if f.label == "Pass interpret=True").apply()
    assert not result.ok
    assert {"add_one_kernel", "add_one"} <= set(result.restored)
    for name, value in before.items():
        assert loaded.shell.user_ns[name] is value, name
    assert "out" not in loaded.shell.user_ns
    assert "rows" not in loaded.shell.user_ns


@pytest.mark.parametrize("label", ["Interpret mode from now on", "Pass interpret=True"])
def test_a_fix_after_a_fix_runs_the_earlier_fix_too(old_kernel: Notebook, label: str) -> None:
    second = jax_nbhelp.last()
    assert second is not None
    fix = next(f for f in second.fixes if f.label == label)
    # What it runs is the kernel as the first fix left it.
    kernel_run = next(run for run in fix.runs if "def add_one_kernel" in run.source)
    assert "pl.load" not in kernel_run.source
    assert "x_ref[slice(None)]" in kernel_run.source
    result = fix.apply()
    assert result.ok, f"{result.error}\n{result.traceback}"
    assert old_kernel["out"].tolist() == [1.0] * 8
    # "Apply to cell" writes every change of the chain against what the user typed.
    (edit,) = [e for e in fix.edits if "add_one_kernel" in e.source]
    assert edit.original == _OLD_KERNEL
    assert "pl.load" not in edit.source
    if label == "Pass interpret=True":
        assert "interpret=True" in edit.source
        assert "pl.load" in fix.diff
        assert "interpret=True" in fix.diff


def test_a_chain_of_three_fixes_keeps_both_rewrites(loaded: Notebook) -> None:
    from jax.experimental import pallas as pl

    if hasattr(pl, "load"):
        pytest.skip("this JAX still has pl.load")
    loaded.ok("from jax.experimental.pallas import tpu as pltpu")
    loaded.ok(_OLD_KERNEL.replace("    o_ref[...]", "    space = pltpu.TPUMemorySpace.VMEM\n"
                                                   "    o_ref[...]"))
    loaded.run("out = add_one(jnp.zeros(8))")
    codes = []
    for _ in range(3):
        diagnosis = jax_nbhelp.last()
        assert diagnosis is not None
        codes.append(diagnosis.code)
        fix = diagnosis.fixes[0]
        result = fix.apply()
        if result.ok:
            break
    assert codes == ["JNH210", "JNH210", "JNH201"]
    assert result.ok
    assert loaded["out"].tolist() == [1.0] * 8
    (edit,) = [e for e in fix.edits if "add_one_kernel" in e.source]
    assert "pltpu.MemorySpace.VMEM" in edit.source
    assert "x_ref[slice(None)]" in edit.source


def test_the_doctor_follows_the_chain_and_its_notebook_runs_clean_after_a_restart(
        tmp_path) -> None:
    """``jax_nbhelp doctor --fix`` in a real kernel: the first fix's run raises a new error,
    whose safe fix carries the first along; the written notebook, run top to bottom in a
    fresh kernel (a restart), gives the user's numbers."""
    import subprocess
    import sys

    from jax.experimental import pallas as pl

    if hasattr(pl, "load"):
        pytest.skip("this JAX still has pl.load")
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import jax, jax.numpy as jnp\n"
                                  "from jax.experimental import pallas as pl"),
        nbformat.v4.new_code_cell(_OLD_KERNEL),
        nbformat.v4.new_code_cell("out = add_one(jnp.zeros(8))\nprint(out.tolist())"),
    ])
    source, repaired = tmp_path / "old.ipynb", tmp_path / "repaired.ipynb"
    nbformat.write(notebook, source)
    proc = subprocess.run([sys.executable, "-m", "jax_nbhelp", "doctor", str(source), "--fix",
                           "--write", str(repaired)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=900, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert 'fixed by "Index the refs, then Pass interpret=True"' in proc.stdout
    written = nbformat.read(repaired, as_version=4)
    kernel_cell = written.cells[1].source
    assert "pl.load" not in kernel_cell
    assert "interpret=True" in kernel_cell
    assert written.cells[1].metadata["jax_nbhelp"]["original"] == _OLD_KERNEL
    # a restart: the repaired notebook alone, in a fresh kernel
    fresh = nbformat.read(repaired, as_version=4)
    nbclient.NotebookClient(fresh, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    printed = "".join(o.get("text", "") for o in fresh.cells[2].outputs)
    assert printed.strip() == str([1.0] * 8)
