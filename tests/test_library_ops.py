"""JAX's shipped Pallas ops on a CPU runtime, in a real shell: the kernel is built inside the
library call, so "Pass interpret=" goes to the user's own call when the op takes it, and
says honestly that the library builds the kernel when it does not."""

from __future__ import annotations

import pytest
from conftest import Notebook

import jax_nbhelp

LAYER_NORM = """\
from jax.experimental.pallas.ops.gpu import layer_norm as gpu_ln
x = jax.random.normal(jax.random.key(0), (2, 4, 256))
w, b = jnp.full((256,), 2.0), jnp.full((256,), 0.5)"""

FLASH = """\
from jax.experimental.pallas.ops.tpu import flash_attention as fa
q, k, v = (jax.random.normal(key, (1, 2, 128, 128)) for key in
           jax.random.split(jax.random.key(1), 3))"""


def _fix(label: str) -> jax_nbhelp.Fix:
    diagnosis = jax_nbhelp.last()
    assert diagnosis is not None
    return next(f for f in diagnosis.fixes if f.label == label)


def test_interpret_goes_to_the_users_call_of_an_op_that_takes_it(loaded: Notebook) -> None:
    pytest.importorskip("jax.experimental.pallas.ops.gpu.layer_norm")
    loaded.ok(LAYER_NORM)
    failed = loaded.run("out = gpu_ln.layer_norm(x, w, b)")
    assert [d["code"] for d in failed.diagnoses] == ["JNH201"]
    fix = _fix("Pass interpret=True")
    assert fix.unavailable is None, fix.unavailable
    assert "+out = gpu_ln.layer_norm(x, w, b, interpret=True)" in fix.diff
    result = fix.apply()
    assert result.ok, result.error
    loaded.ok("want = gpu_ln.layer_norm_reference(x, w, b)")
    assert float(abs(loaded["out"] - loaded["want"]).max()) < 1e-4
    diagnosis = jax_nbhelp.last()
    assert diagnosis is not None
    assert not any("module of your own" in note for note in diagnosis.notes)


def test_an_op_without_interpret_gets_the_honest_reason(loaded: Notebook) -> None:
    pytest.importorskip("jax.experimental.pallas.ops.tpu.flash_attention")
    loaded.ok(FLASH)
    failed = loaded.run("out = fa.flash_attention(q, k, v)")
    assert [d["code"] for d in failed.diagnoses] == ["JNH201"]
    rewrite = next(f for f in jax_nbhelp.last().fixes if f.label.startswith("Pass interpret="))
    assert rewrite.unavailable is not None
    assert "built inside fa.flash_attention(), a library call that takes no interpret=" in (
        rewrite.unavailable)
    lasting = _fix("Interpret mode from now on")
    result = lasting.apply()
    assert result.ok, result.error
    loaded.ok("want = fa.mha_reference(q, k, v, None)")
    assert float(abs(loaded["out"] - loaded["want"]).max()) < 1e-3
