"""A CPU session that just works, in a real Jupyter kernel: one click on the first kernel
that fails carries to every later kernel of any family (JAX's shipped TPU and Triton-style
GPU ops, each in its own interpreter), and a loop that raised resumes where it raised."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import shipped_ops  # noqa: E402  (the op cells and the driver live with the benchmark)

pytestmark = pytest.mark.kernel

# A few ops of each family: the benchmark runs all fourteen.
OPS = {
    "tpu": ["tpu_flash_attention", "gpu_layer_norm", "tpu_matmul", "gpu_softmax",
            "tpu_all_gather", "tpu_ragged_paged_attention"],
    "gpu": ["gpu_layer_norm", "tpu_flash_attention", "gpu_rms_norm", "tpu_all_gather"],
}


@pytest.fixture
def two_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    flags = os.environ.get("XLA_FLAGS", "")
    monkeypatch.setenv("XLA_FLAGS",
                       f"{flags} --xla_force_host_platform_device_count={shipped_ops.DEVICES}")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p))


@pytest.mark.parametrize("scenario", ["tpu", "gpu"])
def test_one_click_runs_ops_of_both_families(two_devices: None, scenario: str) -> None:
    rows = shipped_ops.run_scenario(scenario, OPS[scenario], timeout=600)
    first, fixed, *rest = rows
    assert (first.outcome, first.code) == ("error", "JNH201"), first
    assert fixed.op.endswith("(fix 1: Interpret mode from now on)"), fixed  # the first fix
    assert fixed.outcome == "ok", fixed
    for row in rest:
        if row.op == "tpu_ragged_paged_attention":  # asks the device for its TPU generation
            assert (row.outcome, row.code) == ("error", "JNH407"), row
        else:
            assert row.outcome == "ok", row  # no further click, the right numbers


LOOP = """\
seen, outs = [], []
for i in range(3):
    seen.append(i)
    outs.append(add_one(jnp.full((8, 128), float(i))))
print("seen", seen, "sums", [float(o.sum()) for o in outs])"""


def test_a_loop_resumes_in_its_iteration_in_a_kernel() -> None:
    from jax_nbhelp.doctor.kernel import Kernel

    kernel = Kernel("python3", ROOT)
    try:
        kernel.run(shipped_ops.SETUP + "\nfrom jax.experimental import pallas as pl\n"
                   "def body(x_ref, o_ref):\n    o_ref[...] = x_ref[...] + 1\n"
                   "add_one = pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 128), "
                   "jnp.float32))", 300)
        failed = kernel.run(LOOP, 300)
        assert failed.error is not None
        (bundle,) = failed.bundles
        assert bundle["fixes"][0]["label"] == "Interpret mode from now on"
        loop_run = bundle["fixes"][0]["runs"][-1]
        assert "resumes at line 4 in the iteration where i = 0" in loop_run["why"]
        fixed = kernel.run("%jax_nbhelp fix 1", 300)
        assert "Fixed: 'Interpret mode from now on'" in fixed.text, fixed.text
        # Each iteration once, the failing one from the line that raised.
        assert "seen [0, 1, 2] sums [1024.0, 2048.0, 3072.0]" in fixed.text, fixed.text
        again = kernel.run("print(len(seen), len(outs))", 60)
        assert again.text.strip() == "3 3"
    finally:
        kernel.close()
