"""Kernels on a CPU runtime (JNH201-JNH205) in the layouts users have, with real JAX.

The kernel may be built in an earlier cell (the interpret switch is read when a kernel is
BUILT, so that cell must run again), in the failing cell, or while a jitted function is
traced; core_map over a TPU mesh must never get interpret=True (it returns zeros).
"""

from __future__ import annotations

import dataclasses
import importlib.util

import pytest
from conftest import Notebook

import jax_nbhelp
from jax_nbhelp.core.model import Diagnosis, Fix
from jax_nbhelp.diagnosis.context import build_context
from jax_nbhelp.diagnosis.engine import matching
from jax_nbhelp.fix.kernel_cells import plan_for
from jax_nbhelp.jaxapi import interpret_modes

SHAPE = "jax.ShapeDtypeStruct((8, 128), jnp.float32)"
ADD_ONE = "def add_one(x_ref, o_ref):\n    o_ref[...] = x_ref[...] + 1\n"
GRID = ADD_ONE + f"\nadd_one_kernel = pl.pallas_call(add_one, out_shape={SHAPE})\n"
CALL = "out = add_one_kernel(jnp.ones((8, 128)))"
CORE_MAP = '''\
mesh = pltpu.create_tensorcore_mesh("core", num_cores=1)

@jax.jit
def add_one(x):
    def stateful(refs):
        x_ref, o_ref = refs

        @pl.core_map(mesh)
        def _():
            def body(buf):
                pltpu.sync_copy(x_ref, buf)
                buf[...] += 1
                pltpu.sync_copy(buf, o_ref)
            pl.run_scoped(body, pltpu.VMEM(x.shape, x.dtype))

    _, out = pl.run_state(stateful)((x, jnp.zeros_like(x)))
    return out
'''
GPU_KERNEL = f'''\
import functools
from jax.experimental.pallas import mosaic_gpu as plgpu

@functools.partial(plgpu.kernel, out_type={SHAPE})
def add_one(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1
'''
MESH_CALL = "out = add_one(jnp.ones((8, 128)))"
HAS_GPU_INTERPRET = importlib.util.find_spec("jax._src.pallas.mosaic_gpu.interpret.params")


def _diagnosis(nb: Notebook, failing: str, code: str = "JNH201") -> Diagnosis:
    failed = nb.run(failing)
    assert failed.error is not None, "the cell did not fail"
    assert [d["code"] for d in failed.diagnoses] == [code]
    diagnosis = jax_nbhelp.last()
    assert diagnosis is not None
    return diagnosis


def _fix(diagnosis: Diagnosis, start: str) -> Fix:
    return next(f for f in diagnosis.fixes if f.label.startswith(start))


def _applied(nb: Notebook, fix: Fix, total: float = 2.0 * 8 * 128) -> None:
    result = fix.apply()
    assert result.ok, f"{result.error}\n{result.traceback}"
    assert float(nb["out"].sum()) == total
    assert interpret_modes.switch_value() == ""  # the switch is back off


# ---- JNH201: where the kernel was built ---------------------------------------------------


def test_kernel_built_in_an_earlier_cell_reruns_that_cell(loaded: Notebook) -> None:
    loaded.ok(GRID)
    diagnosis = _diagnosis(loaded, CALL)
    assert diagnosis.location is not None
    assert diagnosis.location.label == "In [3], line 4"
    runtime = _fix(diagnosis, "Re-run in interpret mode")
    assert [run.label for run in runtime.runs] == ["In [3]", "In [4]"]
    # Measured: the switch is read when the kernel is built, so the failing cell alone
    # under the switch still fails.
    alone = dataclasses.replace(runtime, runs=runtime.runs[-1:]).apply()
    assert not alone.ok
    assert "Only interpret mode" in (alone.error or "")
    _applied(loaded, runtime)


def test_kernel_built_in_an_earlier_cell_rewrite(loaded: Notebook) -> None:
    loaded.ok(GRID)
    diagnosis = _diagnosis(loaded, CALL)
    rewrite = _fix(diagnosis, "Pass interpret=True")
    assert "+add_one_kernel = pl.pallas_call(add_one, out_shape=" in rewrite.diff
    assert "interpret=True)" in rewrite.diff
    assert [run.label for run in rewrite.runs] == ["In [3]", "In [4]"]
    _applied(loaded, rewrite)
    assert "interpret" not in loaded.shell.user_ns["In"][3]  # the notebook is not edited


@pytest.mark.parametrize("start", ["Re-run in interpret mode", "Pass interpret=True"])
def test_kernel_built_in_the_failing_cell(loaded: Notebook, start: str) -> None:
    diagnosis = _diagnosis(loaded, GRID + CALL)
    fix = _fix(diagnosis, start)
    assert [run.label for run in fix.runs] == ["In [3]"]
    _applied(loaded, fix)


def test_a_cell_that_captured_the_kernel_runs_again_too(loaded: Notebook) -> None:
    loaded.ok(GRID)
    loaded.ok("run_kernel = jax.jit(add_one_kernel)")
    diagnosis = _diagnosis(loaded, "out = run_kernel(jnp.ones((8, 128)))")
    for start in ("Re-run in interpret mode", "Pass interpret=True"):
        fix = _fix(diagnosis, start)
        assert [run.label for run in fix.runs] == ["In [3]", "In [4]", "In [5]"]
    _applied(loaded, _fix(diagnosis, "Re-run in interpret mode"))


def test_kernel_built_while_tracing_needs_no_earlier_cell(loaded: Notebook) -> None:
    loaded.ok(ADD_ONE + f"\n@jax.jit\ndef g(x):\n    return pl.pallas_call(add_one, "
              f"out_shape={SHAPE})(x)\n")
    diagnosis = _diagnosis(loaded, "out = g(jnp.ones((8, 128)))")
    assert diagnosis.location is not None
    assert diagnosis.location.label == "In [3], line 6"
    runtime = _fix(diagnosis, "Re-run in interpret mode")
    assert [run.label for run in runtime.runs] == ["In [4]"]
    _applied(loaded, runtime)


# ---- JNH201: which interpreter ------------------------------------------------------------


def test_core_map_over_a_tpu_mesh_never_gets_interpret_true(loaded: Notebook) -> None:
    loaded.ok(CORE_MAP)
    diagnosis = _diagnosis(loaded, MESH_CALL)
    labels = [fix.label for fix in diagnosis.fixes]
    # On a CPU runtime the first fix carries to later kernels; the one-off re-run comes last,
    # then the kernel checkup (not a fix)
    assert labels == ["Interpret mode from now on", "Pass interpret=pltpu.InterpretParams()",
                      "Re-run in TPU interpret mode", "Check this kernel"]
    assert all("interpret=True" not in fix.diff for fix in diagnosis.fixes)
    assert "returns zeros" in " ".join(diagnosis.notes)
    # Why: measured, interpret=True runs this kernel without an error and computes zeros.
    with interpret_modes.interpret_switch("hlo"):
        loaded.ok(MESH_CALL)
    assert float(loaded["out"].sum()) == 0.0
    _applied(loaded, _fix(diagnosis, "Pass interpret=pltpu.InterpretParams()"))


def test_pl_kernel_over_a_tpu_mesh_gets_tpu_interpret(loaded: Notebook) -> None:
    loaded.ok("import functools\nmesh = pltpu.create_tensorcore_mesh('core', num_cores=1)\n"
              f"@functools.partial(pl.kernel, out_type={SHAPE}, mesh=mesh)\n"
              "def add_one(x_hbm, o_hbm):\n"
              "    def body(buf):\n"
              "        pltpu.sync_copy(x_hbm, buf)\n"
              "        buf[...] += 1\n"
              "        pltpu.sync_copy(buf, o_hbm)\n"
              "    pl.run_scoped(body, pltpu.VMEM((8, 128), jnp.float32))\n")
    diagnosis = _diagnosis(loaded, MESH_CALL)
    runtime = _fix(diagnosis, "Re-run in TPU interpret mode")
    assert [run.label for run in runtime.runs] == ["In [3]", "In [4]"]
    _applied(loaded, runtime)


def test_dma_kernel_gets_tpu_interpret(loaded: Notebook) -> None:
    loaded.ok("def body(x_hbm, o_ref, buf, sem):\n"
              "    copy = pltpu.make_async_copy(x_hbm, buf, sem)\n"
              "    copy.start()\n"
              "    copy.wait()\n"
              "    o_ref[...] = buf[...] + 1\n"
              f"add_one_kernel = pl.pallas_call(body, out_shape={SHAPE}, "
              "in_specs=[pl.BlockSpec(memory_space=pl.ANY)], "
              "scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA])")
    diagnosis = _diagnosis(loaded, CALL)
    assert "DMAs" in diagnosis.explanation
    _applied(loaded, _fix(diagnosis, "Pass interpret=pltpu.InterpretParams()"))


@pytest.mark.skipif(not HAS_GPU_INTERPRET, reason="needs GPU interpret mode (jax 0.10)")
def test_plgpu_kernel_gets_gpu_interpret(loaded: Notebook) -> None:
    loaded.ok(GPU_KERNEL)
    diagnosis = _diagnosis(loaded, MESH_CALL)
    rewrite = _fix(diagnosis, "Pass interpret=InterpretGPUParams()")
    home = interpret_modes.gpu_params_home()
    assert f"+from {home} import InterpretGPUParams" in rewrite.diff
    _applied(loaded, rewrite)


OUT_OF_BOUNDS_IN_TWO_THREADS = """\
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax._src.pallas.mosaic_gpu.interpret.params import InterpretGPUParams

def reads_past_its_rows(x_ref, o_ref):
    i = jax.lax.axis_index("wg")
    o_ref[pl.ds(i * 16, 8), :] = x_ref[pl.ds(i * 16, 8), :] + 1

rows = jax.ShapeDtypeStruct((8, 128), jnp.float32)
two_threads = plgpu.kernel(reads_past_its_rows, out_type=rows, num_threads=2, thread_name="wg",
                           interpret=InterpretGPUParams())
"""


@pytest.mark.skipif(not HAS_GPU_INTERPRET, reason="needs GPU interpret mode (jax 0.10)")
def test_a_kernel_that_failed_in_the_gpu_interpreter_does_not_break_the_next(
        loaded: Notebook) -> None:
    # JAX clears the GPU interpreter's memory only when a kernel ends normally; without
    # jax_nbhelp, the next kernel with another thread count fails with a bare AssertionError.
    loaded.ok(OUT_OF_BOUNDS_IN_TWO_THREADS)
    assert loaded.run("two_threads(jnp.ones((8, 128)))").error is not None
    loaded.ok("def add_one(x_ref, o_ref):\n"
              "    o_ref[...] = x_ref[...] + 1\n"
              "one_thread = plgpu.kernel(add_one, out_type=rows, interpret=InterpretGPUParams())\n"
              "assert float(one_thread(jnp.ones((8, 128))).sum()) == 2048.0")


def test_without_jaxs_view_the_choice_comes_from_the_source(loaded: Notebook) -> None:
    loaded.ok(CORE_MAP)
    failed = loaded.run(MESH_CALL)
    assert failed.error is not None
    ctx = build_context(failed.error, loaded.shell)
    assert ctx.kernel is not None
    assert ctx.kernel.mesh_family == "tpu"
    (diagnosis,) = matching(ctx.replace(kernel=None))
    assert "Re-run in TPU interpret mode" in [fix.label for fix in diagnosis.fixes]
    assert "read from your code" in diagnosis.explanation


# ---- backend awareness and capabilities ---------------------------------------------------


def test_backend_is_read_without_initialising_one(loaded: Notebook) -> None:
    from jax._src import xla_bridge

    loaded.ok(GRID)
    before = sorted(xla_bridge._backends)
    diagnosis = _diagnosis(loaded, CALL)
    assert sorted(xla_bridge._backends) == before
    assert interpret_modes.initialized_platforms() == ("cpu",)
    assert "has no TPU or GPU" in diagnosis.explanation


def test_on_an_accelerator_runtime_interpret_mode_is_called_a_testing_aid() -> None:
    text = interpret_modes.backend_sentence(("cpu", "tpu"))
    assert "This runtime has a TPU" in text
    assert "testing aid" in text
    assert "GPU" in interpret_modes.backend_sentence(("cpu", "cuda"))


def test_missing_gpu_interpret_mode_is_explained_not_offered(
    loaded: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded.ok(GPU_KERNEL)
    monkeypatch.setattr(interpret_modes, "GPU_PARAMS_HOMES", ("jax._src.pallas.not_there",))
    diagnosis = _diagnosis(loaded, MESH_CALL)
    assert "cannot offer GPU interpret mode" in diagnosis.explanation
    assert diagnosis.fixes
    assert all(fix.unavailable for fix in diagnosis.fixes)
    assert all("no GPU interpret mode" in (fix.unavailable or "") for fix in diagnosis.fixes)
    assert not diagnosis.fixes[0].apply().ok


def test_missing_tpu_interpret_mode_never_falls_back_to_interpret_true(
    loaded: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded.ok(CORE_MAP)
    monkeypatch.setattr(interpret_modes, "TPU_PARAMS_HOME", "jax.experimental.pallas.not_there")
    diagnosis = _diagnosis(loaded, MESH_CALL)
    assert "cannot offer TPU interpret mode" in diagnosis.explanation
    assert all("no TPU interpret mode" in (fix.unavailable or "") for fix in diagnosis.fixes)
    assert all("True" not in fix.label for fix in diagnosis.fixes)


def test_missing_interpret_switch_leaves_the_rewrite(
    loaded: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded.ok(GRID)
    monkeypatch.setattr(interpret_modes, "SWITCH_HOME", ("jax._src.config", "not_there"))
    diagnosis = _diagnosis(loaded, CALL)
    runtime, rewrite, from_now_on, _check = diagnosis.fixes
    assert runtime.unavailable
    assert "no global interpret switch" in runtime.unavailable
    assert from_now_on.unavailable == runtime.unavailable
    assert rewrite.unavailable is None
    monkeypatch.undo()
    _applied(loaded, rewrite)


# ---- the cells a kernel depends on (pure analysis) ----------------------------------------


@pytest.mark.parametrize(
    ("cells", "reruns"),
    [
        ([GRID, CALL], (1,)),
        ([GRID + CALL], ()),
        ([GRID, "g = jax.jit(add_one_kernel)", "x = 1", "out = g(x)"], (1, 2)),
        ([GRID, "def run(x):\n    return add_one_kernel(x)", "out = run(x)"], (1,)),
        ([GRID, "add_one_kernel = lambda x: x", CALL], ()),
        ([GRID, "%%time\n" + CALL], (1,)),
        (["from kernels import add_one_kernel", CALL], ()),
    ],
)
def test_plan_finds_the_cells_that_built_the_kernel(cells: list[str], reruns: tuple[int, ...]
                                                    ) -> None:
    history = dict(enumerate(cells[:-1], 1))
    assert plan_for(len(cells), cells[-1], history).reruns == reruns


# ---- JNH202-JNH205 beyond their examples --------------------------------------------------


def test_tensorcore_mesh_error_has_an_empty_message(loaded: Notebook) -> None:
    failed = loaded.run('mesh = pltpu.create_tensorcore_mesh("core")')
    assert isinstance(failed.error, AttributeError)
    assert str(failed.error) == ""
    assert [d["code"] for d in failed.diagnoses] == ["JNH202"]


def test_tensorcore_mesh_with_devices_is_not_rewritten(loaded: Notebook) -> None:
    diagnosis = _diagnosis(
        loaded, 'mesh = pltpu.create_tensorcore_mesh("core", devices=jax.devices())', "JNH202"
    )
    (fix,) = diagnosis.fixes
    assert fix.unavailable
    assert "devices" in fix.unavailable


@pytest.mark.parametrize("platform", ["tpu", "gpu", "cuda"])
def test_named_backend_missing(loaded: Notebook, platform: str) -> None:
    diagnosis = _diagnosis(loaded, f'devices = jax.devices("{platform}")', "JNH203")
    assert f"'{platform}' backend" in diagnosis.explanation
    result = diagnosis.fixes[0].apply()
    assert result.ok
    assert loaded["devices"]


def test_named_backend_in_a_variable_is_explained_only(loaded: Notebook) -> None:
    diagnosis = _diagnosis(loaded, 'name = "tpu"\ndevices = jax.devices(name)', "JNH203")
    assert diagnosis.fixes[0].unavailable


def test_hbm_ref_read_in_a_mesh_kernel_has_no_mechanical_fix(loaded: Notebook) -> None:
    loaded.ok("import functools\nmesh = pltpu.create_tensorcore_mesh('core', num_cores=1)\n"
              f"@functools.partial(pl.kernel, out_type={SHAPE}, mesh=mesh, "
              "interpret=pltpu.InterpretParams())\n" + ADD_ONE)
    diagnosis = _diagnosis(loaded, MESH_CALL, "JNH204")
    assert diagnosis.location is not None
    assert diagnosis.location.label == "In [3], line 5"
    assert "reads x_ref[...] directly" in diagnosis.explanation
    assert all(fix.unavailable for fix in diagnosis.fixes)
    assert "pltpu.sync_copy(x_ref, buf)" in diagnosis.notes[0]


@pytest.mark.skipif(not HAS_GPU_INTERPRET, reason="needs GPU interpret mode (jax 0.10)")
def test_gpu_kernel_with_tpu_scratch_fits_no_interpreter(loaded: Notebook) -> None:
    home = interpret_modes.gpu_params_home()
    loaded.ok(f"from {home} import InterpretGPUParams\n" + GPU_KERNEL.replace(
        f"out_type={SHAPE})",
        f"out_type={SHAPE}, scratch_types=[pltpu.VMEM((8, 128), jnp.float32)], "
        "interpret=InterpretGPUParams())").replace(
        "def add_one(x_ref, o_ref):\n    o_ref[...] = x_ref[...] + 1",
        "def add_one(x_ref, o_ref, buf):\n    buf[...] = x_ref[...] + 1\n"
        "    o_ref[...] = buf[...]"))
    diagnosis = _diagnosis(loaded, MESH_CALL, "JNH205")
    assert "Unsupported memory space: vmem" in diagnosis.error
    assert diagnosis.fixes == ()
    assert "plgpu.SMEM" in diagnosis.notes[0]


def test_a_helper_that_builds_and_calls_the_kernel_is_reached_from_the_calling_cell(
        loaded: Notebook) -> None:
    loaded.ok("def add_one(x_ref, o_ref):\n"
              "    o_ref[...] = x_ref[...] + 1\n"
              "\n"
              "def run(x):\n"
              "    return pl.pallas_call(add_one, out_shape=jax.ShapeDtypeStruct(x.shape, "
              "x.dtype))(x)")
    failed = loaded.run("x = jnp.ones((8, 128))\nout = run(x)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH201"
    assert (bundle["location"]["cell"], bundle["location"]["lineno"]) == (3, 5)
    assert (bundle["call_site"]["cell"], bundle["call_site"]["lineno"]) == (4, 2), bundle
    assert "called from In [4], line 2" in bundle["explanation"]


def test_a_kernel_built_through_a_partial_bound_earlier_in_its_cell_is_rebuilt() -> None:
    """``call = partial(pl.pallas_call, ...)`` then ``add = call(kernel)`` in one cell: both
    statements run again, the partial first (it holds the constructor it was given)."""
    history = {1: "import jax, jax.numpy as jnp\nfrom functools import partial\n"
                  "from jax.experimental import pallas as pl",
               2: "def add_one(x_ref, o_ref):\n    o_ref[...] = x_ref[...] + 1.0",
               3: "call = partial(pl.pallas_call, out_shape=jax.ShapeDtypeStruct((8, 128), "
                  "jnp.float32))\nadd = call(add_one)"}
    plan = plan_for(4, "y = add(jnp.zeros((8, 128)))", history)
    assert plan.reruns == (3,)
    assert [(cell, line) for cell, line, _ in plan.statements] == [(3, 1), (3, 2)]
