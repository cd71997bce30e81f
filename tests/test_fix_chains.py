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
