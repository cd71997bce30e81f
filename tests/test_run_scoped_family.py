"""The run_scoped family beyond the catalog examples: errors with no line of the user's code,
the run-time wrapper, probes of the installed JAX, and a missing capability."""

from __future__ import annotations

import importlib.util
import inspect
import sys
from pathlib import Path

import pytest
from conftest import Notebook

import jax_nbhelp
from jax_nbhelp.fix.interpreted_kernel import runner_source
from jax_nbhelp.jaxapi import capabilities
from jax_nbhelp.rewrite import CannotRewrite
from jax_nbhelp.rewrite.collective_call import collective_call_at
from jax_nbhelp.rewrite.drop_jit_decorator import remove_jit_decorator
from jax_nbhelp.rewrite.jit_to_gpu_kernel import jit_call_to_kernel
from jax_nbhelp.show import view

# Examples use plgpu.kernel's positional output type, which works on jax 0.9 and 0.10 alike.
pytestmark = pytest.mark.filterwarnings(
    "ignore:The out_shape and scratch_shapes arguments:DeprecationWarning"
)

needs_mosaic_gpu = pytest.mark.skipif(
    importlib.util.find_spec("absl") is None, reason="Mosaic GPU Pallas needs absl-py"
)

GPU_IMPORT = "from jax.experimental.pallas import mosaic_gpu as plgpu"

THREADED_KERNEL = GPU_IMPORT + '''
def add_one(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1
add_one_gpu = plgpu.kernel(add_one, jax.ShapeDtypeStruct((8, 128), jnp.float32),
                           num_threads=2, thread_name="wg", interpret=True)'''

GPU_HELPER = GPU_IMPORT + '''
def shared_scale(x):
    def body(ref):
        ref[...] = x * 2
        return ref[...] + 1
    return pl.run_scoped(body, plgpu.SMEM(x.shape, x.dtype), collective_axes=AXES)'''

JITTED_HELPER = GPU_IMPORT + '''
@jax.jit
def doubled_plus_one(x):
    def body(ref):
        ref[...] = x * 2
        return ref[...] + 1
    return pl.run_scoped(body, plgpu.SMEM(x.shape, x.dtype), collective_axes="wg")'''

GPU_KERNEL_CALLING_HELPER = GPU_IMPORT + '''
from jax_nbhelp.jaxapi.capabilities import gpu_interpret
def kernel_body(x_ref, o_ref):
    o_ref[...] = doubled_plus_one(x_ref[...])
kernel = plgpu.kernel(kernel_body, jax.ShapeDtypeStruct((8, 128), jnp.float32),
                      num_threads=2, thread_name="wg", interpret=gpu_interpret().params_class())'''


def _diagnosis() -> jax_nbhelp.Diagnosis:
    diagnosis = jax_nbhelp.last()
    assert diagnosis is not None
    return diagnosis


def _fix(label: str) -> jax_nbhelp.Fix:
    return next(f for f in _diagnosis().fixes if f.label == label)


def _no_gpu_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the probe look where releases before 0.9 have nothing."""
    monkeypatch.setattr(capabilities, "GPU_PARAMS_HOMES", ("jax._src.no_such_interpreter",))


# Probes of the installed JAX


@needs_mosaic_gpu
def test_gpu_interpret_probe_matches_the_installed_plgpu_kernel() -> None:
    from jax.experimental.pallas import mosaic_gpu as plgpu

    found = capabilities.gpu_interpret()
    assert isinstance(found, capabilities.GpuInterpret), found
    keywords = inspect.signature(plgpu.kernel).parameters
    assert found.out_keyword == ("out_type" if "out_type" in keywords else "out_shape")
    assert found.params_module in capabilities.GPU_PARAMS_HOMES
    assert found.params_class().__class__.__name__ == "InterpretGPUParams"
    code = runner_source(found)
    assert found.import_line in code
    assert f"{found.out_keyword}=out_type" in code
    compile(code, "<runner>", "exec")


def test_missing_gpu_interpreter_is_a_reason_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_gpu_interpreter(monkeypatch)
    reason = capabilities.gpu_interpret()
    assert isinstance(reason, str)
    assert "no GPU kernel interpreter" in reason
    assert capabilities.gpu_interpret_mode_reason() == reason
    with pytest.raises(RuntimeError, match="no GPU kernel interpreter"), \
            capabilities.gpu_interpret_mode():
        pass


def test_interpret_switch_is_restored() -> None:
    switch = capabilities.interpret_switch()
    assert not isinstance(switch, str), switch
    before = switch.value
    # A block in which no kernel ran in TPU interpret mode does not pass for a fix.
    with pytest.raises(RuntimeError, match="no kernel ran in TPU interpret mode"), \
            capabilities.tpu_interpret_mode():
        assert switch.value is not None
    assert switch.value == before


# JNH103: the run_scoped that JAX adds itself


@needs_mosaic_gpu
def test_threaded_gpu_kernel_names_no_user_line(loaded: Notebook) -> None:
    loaded.ok(THREADED_KERNEL)
    failed = loaded.run("out = add_one_gpu(jnp.ones((8, 128)))")
    assert isinstance(failed.error, NotImplementedError)
    (shown,) = failed.diagnoses
    assert shown["code"] == "JNH103"
    assert shown["location"] is None
    assert shown["call_site"]["label"] == "In [4], line 1"
    assert "JAX adds itself" in shown["explanation"]
    assert [f["label"] for f in shown["fixes"]] == ["Run in GPU interpret mode"]
    fix = _fix("Run in GPU interpret mode")
    assert [run.label for run in fix.runs] == ["In [4]"]
    result = fix.apply()
    assert result.ok, result.traceback
    assert bool((loaded["out"] == 2).all())
    # The switch is put back: the unchanged code fails again.
    assert isinstance(loaded.run("add_one_gpu(jnp.ones((8, 128)))").error, NotImplementedError)


@needs_mosaic_gpu
def test_threaded_gpu_kernel_without_gpu_interpreter(
    loaded: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_gpu_interpreter(monkeypatch)
    loaded.ok(THREADED_KERNEL)
    loaded.run("out = add_one_gpu(jnp.ones((8, 128)))")
    (fix,) = _diagnosis().fixes
    assert fix.unavailable is not None
    assert "no GPU kernel interpreter" in fix.unavailable
    assert any("not available here" in note for note in _diagnosis().notes)
    refused = fix.apply()
    assert not refused.ok
    assert "no GPU kernel interpreter" in (refused.error or "")


@needs_mosaic_gpu
def test_user_run_scoped_in_gpu_mesh_kernel_reruns_the_kernel_cell(loaded: Notebook) -> None:
    # pl.kernel reads the interpret setting when it is built (jax 0.10), so the cell that
    # builds it runs again under the switch.
    loaded.ok(GPU_IMPORT + '''
def add_one(x_ref, o_ref):
    def body(scratch):
        scratch[...] = x_ref[...] + 1
        o_ref[...] = scratch[...]
    pl.run_scoped(body, plgpu.SMEM((8, 128), jnp.float32), collective_axes="wg")
kernel = pl.kernel(add_one, jax.ShapeDtypeStruct((8, 128), jnp.float32),
                   mesh=plgpu.Mesh(num_threads=2, thread_name="wg"), interpret=True)''')
    failed = loaded.run("out = kernel(jnp.ones((8, 128)))")
    (shown,) = failed.diagnoses
    assert shown["code"] == "JNH103"
    assert shown["location"]["label"] == "In [3], line 6"
    fix = _fix("Run in GPU interpret mode")
    assert [run.label for run in fix.runs] == ["In [3]", "In [4]"]
    result = fix.apply()
    assert result.ok, result.traceback
    assert bool((loaded["out"] == 2).all())


def test_tpu_mesh_kernel_built_in_another_cell_is_never_silently_interpreted(
    loaded: Notebook,
) -> None:
    loaded.ok('''
mesh = pltpu.create_tensorcore_mesh("core", num_cores=1)
def stage(x_hbm, o_hbm):
    def body(buf):
        pltpu.sync_copy(x_hbm, buf)
        buf[...] = buf[...] * 2 + 1
        pltpu.sync_copy(buf, o_hbm)
    pl.run_scoped(body, pltpu.VMEM((8, 128), jnp.float32), collective_axes="core")''')
    loaded.ok("kernel = pl.kernel(lambda x, o: stage(x, o), jax.ShapeDtypeStruct((8, 128), "
              "jnp.float32), mesh=mesh, interpret=True)")
    failed = loaded.run("out = kernel(jnp.ones((8, 128)))")
    assert [d["code"] for d in failed.diagnoses] == ["JNH103"]
    fix = _fix("Remove collective_axes, run in TPU interpret mode")
    assert [run.label for run in fix.runs] == ["In [3]", "In [5]"]
    result = fix.apply()
    if result.ok:
        # This JAX reads the interpret setting at call time (0.9): the kernel was interpreted.
        assert bool((loaded["out"] == 3).all())
    else:
        # It reads it when pl.kernel is built (0.10), in In [4], which the fix did not re-run.
        assert "no kernel ran in TPU interpret mode" in (result.error or "")


@needs_mosaic_gpu
def test_tpu_scratch_in_a_cell_that_imports_mosaic_gpu_is_not_a_gpu_kernel(
    loaded: Notebook,
) -> None:
    loaded.ok(GPU_IMPORT + '''
def add_one_kernel(x_ref, o_ref):
    def body(scratch):
        scratch[...] = x_ref[...] * 2
        o_ref[...] = scratch[...] + 1
    pl.run_scoped(body, pltpu.VMEM((8, 128), jnp.float32), collective_axes="core")''')
    loaded.run("out = pl.pallas_call(add_one_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), "
               "jnp.float32), interpret=True)(jnp.ones((8, 128)))")
    # the fix, then the checkup of the kernel it makes run (not a fix)
    assert [f.label for f in _diagnosis().fixes] == ["Remove collective_axes",
                                                     "Check this kernel"]
    result = _fix("Remove collective_axes").apply()
    assert result.ok, result.traceback
    assert bool((loaded["out"] == 3).all())


# JNH106: the flagship inside a JaxRuntimeError


@needs_mosaic_gpu
def test_runtime_wrapper_is_jnh106_not_the_flagship(loaded: Notebook) -> None:
    loaded.ok(JITTED_HELPER)
    loaded.ok(GPU_KERNEL_CALLING_HELPER)
    failed = loaded.run("out = kernel(jnp.ones((8, 128)))")
    assert type(failed.error).__name__ == "JaxRuntimeError"
    assert "does not support collective_axes" in str(failed.error)
    assert [d["code"] for d in failed.diagnoses] == ["JNH106"]
    diagnosis = _diagnosis()
    assert diagnosis.error.startswith("JaxRuntimeError: INTERNAL: CpuCallback error")
    assert diagnosis.location is not None
    assert diagnosis.location.label == "In [3], line 7"
    assert diagnosis.location.function == "doubled_plus_one"
    fix = _fix("Call it without jax.jit")
    assert "-@jax.jit" in view.preview(fix)
    assert [run.label for run in fix.runs] == ["In [3]", "In [5]"]
    result = fix.apply()
    assert result.ok, result.traceback
    assert bool((loaded["out"] == 3).all())


@needs_mosaic_gpu
def test_runtime_wrapper_with_two_candidate_helpers_offers_no_fix(loaded: Notebook) -> None:
    loaded.ok(JITTED_HELPER)
    loaded.ok(JITTED_HELPER.replace("doubled_plus_one", "other_helper"))
    loaded.ok(GPU_KERNEL_CALLING_HELPER)
    loaded.run("out = kernel(jnp.ones((8, 128)))")
    diagnosis = _diagnosis()
    assert diagnosis.code == "JNH106"
    assert diagnosis.fixes == ()
    assert diagnosis.location is None
    assert "other_helper (In [4], line 7)" in diagnosis.notes[0]
    assert "doubled_plus_one (In [3], line 7)" in diagnosis.notes[0]


@needs_mosaic_gpu
def test_runtime_wrapper_with_helper_in_a_module(loaded: Notebook, tmp_path: Path) -> None:
    (tmp_path / "gpu_helpers.py").write_text(
        "import jax\nfrom jax.experimental import pallas as pl\n" + JITTED_HELPER + "\n"
    )
    loaded.shell.user_ns["sys"] = sys
    loaded.ok(f"sys.path.insert(0, {str(tmp_path)!r})\nfrom gpu_helpers import doubled_plus_one")
    try:
        loaded.ok(GPU_KERNEL_CALLING_HELPER)
        loaded.run("out = kernel(jnp.ones((8, 128)))")
        diagnosis = _diagnosis()
        assert diagnosis.code == "JNH106"
        assert diagnosis.fixes == ()
        assert "may live in a module" in diagnosis.notes[0]
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("gpu_helpers", None)


# JNH101 + "Run in an interpreted kernel"


@needs_mosaic_gpu
def test_interpreted_kernel_fix_exercises_the_shared_allocation(loaded: Notebook) -> None:
    loaded.ok(GPU_HELPER.replace("AXES", '"wg"'))
    loaded.run("out = jax.jit(shared_scale)(jnp.ones((8, 128)))")
    assert _diagnosis().code == "JNH101"
    fix = _fix("Run in an interpreted kernel")
    assert fix.unavailable is None
    found = capabilities.gpu_interpret()
    assert not isinstance(found, str)
    preview = view.preview(fix)
    assert found.import_line in preview
    assert "+out = run_in_gpu_kernel(shared_scale, \"wg\")(jnp.ones((8, 128)))" in preview
    result = fix.apply()
    assert result.ok, result.traceback
    assert bool((loaded["out"] == 3).all())
    # The generated runner really shares the allocation: thread 1 writes, thread 0 reads.
    loaded.ok('''
def written_by_thread_one(x):
    def body(ref, barrier):
        @pl.when(jax.lax.axis_index("wg") == 1)
        def _():
            ref[...] = x * 5
        plgpu.barrier_arrive(barrier)
        plgpu.barrier_wait(barrier)
        return ref[...]
    return pl.run_scoped(body, plgpu.SMEM(x.shape, x.dtype), plgpu.Barrier(num_arrivals=2),
                         collective_axes="wg")
shared = run_in_gpu_kernel(written_by_thread_one, "wg")(jnp.ones((8, 128)))''')
    assert bool((loaded["shared"] == 5).all())


@needs_mosaic_gpu
def test_interpreted_kernel_fix_without_gpu_interpreter(
    loaded: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_gpu_interpreter(monkeypatch)
    loaded.ok(GPU_HELPER.replace("AXES", '"wg"'))
    loaded.run("out = jax.jit(shared_scale)(jnp.ones((8, 128)))")
    fix = _fix("Run in an interpreted kernel")
    assert fix.unavailable is not None
    assert "no GPU kernel interpreter" in fix.unavailable
    # The other fixes are untouched.
    assert _fix("Remove collective_axes").unavailable is None


@needs_mosaic_gpu
def test_interpreted_kernel_fix_needs_a_literal_axis(loaded: Notebook) -> None:
    loaded.ok("AXIS_NAMES = ('wg', 'cluster')\n" + GPU_HELPER.replace("AXES", "AXIS_NAMES"))
    loaded.run("out = jax.jit(shared_scale)(jnp.ones((8, 128)))")
    fix = _fix("Run in an interpreted kernel")
    assert fix.unavailable is not None
    assert "one axis name written as a string" in fix.unavailable


def test_tpu_helper_gets_no_interpreted_kernel_fix(loaded: Notebook) -> None:
    loaded.ok('''
def scaled(x):
    def body(ref):
        ref[...] = x * 2
        return ref[...] + 1
    return pl.run_scoped(body, pltpu.VMEM(x.shape, x.dtype), collective_axes="core")''')
    loaded.run("out = jax.jit(scaled)(jnp.ones((8, 128)))")
    assert [f.label for f in _diagnosis().fixes if f.kind != "check"] == [
        "Run as one program", "Remove collective_axes"]


# JNH105 / JNH107 details


def test_discharge_names_the_run_scoped_line(loaded: Notebook) -> None:
    loaded.ok('''
r = jax.new_ref(jnp.zeros((8, 128)))
@jax.jit
def f(x):
    def body(s):
        s[...] = x * 2
        r[...] = s[...] + 1
    pl.run_scoped(body, pltpu.VMEM((8, 128), jnp.float32), collective_axes="core")
    return r[...]''')
    failed = loaded.run("out = f(jnp.ones((8, 128)))")
    (shown,) = failed.diagnoses
    assert shown["code"] == "JNH105"
    assert shown["location"]["label"] == "In [3], line 8"
    assert shown["call_site"]["label"] == "In [4], line 1"
    result = _fix("Remove collective_axes").apply()
    assert result.ok, result.traceback
    assert bool((loaded["out"] == 3).all())


def test_grad_is_explained_without_a_fix(loaded: Notebook) -> None:
    loaded.ok('''
def scaled(x):
    def body(ref):
        ref[...] = x * 2
        return ref[...] + 1
    return pl.run_scoped(body, pltpu.VMEM(x.shape, x.dtype), collective_axes="core")''')
    failed = loaded.run("jax.grad(lambda x: scaled(x).sum())(jnp.ones((8, 128)))")
    (shown,) = failed.diagnoses
    assert shown["code"] == "JNH107"
    assert shown["fixes"] == []
    assert "custom_vjp" in " ".join(shown["notes"])
    assert shown["location"]["label"] == "In [3], line 6"


# The rewrites


def test_remove_jit_decorator_forms() -> None:
    source = (
        "import functools\n"
        "# the helper\n"
        "@functools.partial(jax.jit, static_argnames=('n',))\n"
        "@other\n"
        "def helper(x, n):\n"
        "    return x\n"
        "@jit\n"
        "def g(x):\n"
        "    return x\n"
    )
    assert remove_jit_decorator(source, "helper") == source.replace(
        "@functools.partial(jax.jit, static_argnames=('n',))\n", ""
    )
    assert remove_jit_decorator(source, "g") == source.replace("@jit\n", "")
    with pytest.raises(CannotRewrite, match=r"no jax\.jit decorator"):
        remove_jit_decorator("h = jax.jit(lambda x: x)\ndef h2(x):\n    return x\n", "h2")
    with pytest.raises(CannotRewrite, match="defines no function"):
        remove_jit_decorator("x = 1\n", "helper")
    cell = "%%time\n@jax.jit\ndef helper(x):\n    return x\n"
    assert remove_jit_decorator(cell, "helper") == "%%time\ndef helper(x):\n    return x\n"


def test_jit_call_to_kernel() -> None:
    prelude = "def run(f, axis):\n    return f\n\n\n"
    cell = "%config X.y = 1\nout = jax.jit(helper)(x)  # try it\n"
    assert jit_call_to_kernel(cell, 2, "run", "wg", prelude) == (
        prelude + '%config X.y = 1\nout = run(helper, "wg")(x)  # try it\n'
    )
    with pytest.raises(CannotRewrite, match=r"does not call jax\.jit"):
        jit_call_to_kernel("out = jax.jit(helper, static_argnums=0)(x)\n", 1, "run", "wg", "")
    with pytest.raises(CannotRewrite, match="cell magic"):
        jit_call_to_kernel("%%time\nout = jax.jit(helper)(x)\n", 2, "run", "wg", "")


def test_collective_call_at_reads_axes() -> None:
    source = (
        "def f(x):\n"
        "    return pl.run_scoped(\n"
        "        body, plgpu.SMEM((8,), jnp.float32),\n"
        "        collective_axes=('wg',))\n"
    )
    call = collective_call_at(source, 2)
    assert call.axes == ("wg",)
    assert "plgpu.SMEM" in call.text
    assert collective_call_at(source.replace("('wg',)", "AXES"), 2).axes is None
    with pytest.raises(CannotRewrite):
        collective_call_at(source, 1)
