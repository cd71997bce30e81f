"""Interpret mode from now on gives every kernel the interpreter of its family, in a real shell.

A session tries several kinds of kernel (a user trying JAX's shipped TPU and GPU ops): TPU
(Mosaic) kernels need TPU interpret mode, Triton-style GPU kernels plain interpret=True,
Mosaic GPU kernels GPU interpret mode. One interpreter for all fails: the TPU interpreter
asserts on Triton compiler params, the HLO interpreter cannot do DMAs.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from jax_nbhelp.jaxapi import interpret_modes
from jax_nbhelp.jaxapi.family_switch import CONFIG_MODULE, SWITCH_NAME
from tests.conftest import Notebook

GPU_HOME = "jax._src.pallas.mosaic_gpu.interpret.params"

KERNELS = """\
import functools
from jax.experimental.pallas import triton as pltriton
from jax.experimental.pallas import mosaic_gpu as plgpu

S = jax.ShapeDtypeStruct((8, 128), jnp.float32)
x = jnp.ones((8, 128))

def add_one(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1

def triton_kernel():
    return pl.pallas_call(add_one, out_shape=S,
                          compiler_params=pltriton.CompilerParams(num_warps=4))

def dma_kernel():
    def body(x_hbm, o_ref, buf, sem):
        copy = pltpu.make_async_copy(x_hbm, buf, sem)
        copy.start()
        copy.wait()
        o_ref[...] = buf[...] + 1
    return pl.pallas_call(body, out_shape=S, in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                          scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32),
                                          pltpu.SemaphoreType.DMA])

def mesh_kernel():
    mesh = pltpu.create_tensorcore_mesh("core", num_cores=1)
    @functools.partial(pl.kernel, out_type=S, mesh=mesh)
    def kernel(x_hbm, o_hbm):
        def body(buf):
            pltpu.sync_copy(x_hbm, buf)
            buf[...] += 1
            pltpu.sync_copy(buf, o_hbm)
        pl.run_scoped(body, pltpu.VMEM((8, 128), jnp.float32))
    return kernel

def mosaic_gpu_kernel():
    return plgpu.kernel(add_one, out_type=S)

def plain_kernel():
    return pl.pallas_call(add_one, out_shape=S)
"""

ALL = ("triton_kernel", "dma_kernel", "mesh_kernel", "mosaic_gpu_kernel", "plain_kernel")


@pytest.fixture
def session(loaded: Notebook) -> Iterator[Notebook]:
    pytest.importorskip(GPU_HOME)
    loaded.ok(KERNELS)
    yield loaded
    interpret_modes.switch_off()


def _switch() -> object:
    import sys

    return getattr(sys.modules[CONFIG_MODULE], SWITCH_NAME)


@pytest.mark.parametrize("default", ["tpu", "hlo", "gpu"])
def test_each_family_gets_its_interpreter_whichever_mode_was_switched_on(
        session: Notebook, default: str) -> None:
    real = _switch()
    session.ok(f"%jax_nbhelp interpret {default}")
    for name in ALL:
        out = session.run(f"assert float({name}()(x).sum()) == 2048.0, '{name}'")
        assert out.error is None, (name, out.stdout, out.stderr)
    shown = session.ok("%jax_nbhelp interpret").stdout
    assert "Triton-style GPU kernels: plain interpret mode" in shown
    assert "TPU (Mosaic) kernels: TPU interpret mode" in shown
    assert "Mosaic GPU kernels: GPU interpret mode" in shown
    session.ok("%jax_nbhelp interpret off")
    assert _switch() is real, "switching off puts JAX's own switch object back"
    assert session.run("triton_kernel()(x)").error is not None  # compiled as written again


def test_a_kernel_that_asks_for_its_own_interpreter_keeps_it(session: Notebook) -> None:
    session.ok("%jax_nbhelp interpret on")
    session.ok("own = pltpu.InterpretParams(detect_races=True)\n"
               "k = pl.pallas_call(add_one, out_shape=S, interpret=own)\n"
               "assert float(k(x).sum()) == 2048.0")


def test_a_switch_set_by_the_user_passes_through(session: Notebook) -> None:
    session.ok("%jax_nbhelp interpret on")
    out = session.run("with pltpu.force_tpu_interpret_mode():\n"
                      "    k = triton_kernel()\n"
                      "k(x)")
    assert type(out.error).__name__ == "AssertionError"  # the user's TPU mode, as they set it


def test_unload_restores_the_switch(session: Notebook) -> None:
    real = _switch()
    session.ok("%jax_nbhelp interpret on")
    assert _switch() is not real
    session.ok("%unload_ext jax_nbhelp")
    assert _switch() is real
    assert interpret_modes.session_mode() is None


def test_triton_kernel_under_tpu_interpret_is_diagnosed(session: Notebook) -> None:
    # The user's own switch, read when the kernel is built (what an old single-interpreter
    # session did to every kernel).
    out = session.run("with pltpu.force_tpu_interpret_mode():\n"
                      "    k = triton_kernel()\n"
                      "out = k(x)")
    assert type(out.error).__name__ == "AssertionError"
    (bundle,) = out.diagnoses
    assert bundle["code"] == "JNH205"
    assert "Triton" in bundle["explanation"]
    labels = [fix["label"] for fix in bundle["fixes"]]
    assert "Pass interpret=True" in labels


def test_the_lasting_fix_says_how_to_keep_it(session: Notebook) -> None:
    from jax_nbhelp.show.card.html import outcome_html
    from jax_nbhelp.show.view import outcome_view

    # The kernel is built by a function of the user's, called on the line before the one
    # that raised: that line runs again under the switch (it builds the kernel).
    out = session.run("k = plain_kernel()\nresult = k(x)")
    (bundle,) = out.diagnoses
    assert bundle["fixes"][0]["runs"][-1]["first_line"] == 1
    first = bundle["fixes"][0]
    assert first["label"] == "Interpret mode from now on"
    assert first["setup_line"] == "%jax_nbhelp interpret hlo"
    assert all(fix["setup_line"] is None for fix in bundle["fixes"][1:])
    applied = session.ok("%jax_nbhelp fix 1").stdout
    assert ("To keep it in the notebook: put `%jax_nbhelp interpret hlo` after "
            "`%load_ext jax_nbhelp` in its first cell") in applied
    import jax_nbhelp

    diagnosis = jax_nbhelp.last()
    assert diagnosis is not None
    result = jax_nbhelp.last_result()
    html = outcome_html(outcome_view(diagnosis.fixes[0], result))
    assert "<code>%jax_nbhelp interpret hlo</code>" in html
    # The line, run in a fresh session, is what the fix left on.
    session.ok("%jax_nbhelp interpret off")
    session.ok("%jax_nbhelp interpret hlo")
    assert interpret_modes.session_mode() == "hlo"


def test_the_interpret_mode_note_shows_only_on_kernel_errors(loaded: Notebook) -> None:
    """While a mode is on "from now on", the note saying so bears on a Pallas kernel's error,
    not on a tracer error elsewhere in the notebook."""
    import jax_nbhelp
    from jax_nbhelp.show.display import presented

    loaded.ok("%jax_nbhelp interpret on")
    try:
        assert loaded.run("jax.jit(lambda x: int(x))(jnp.float32(1.5))").error is not None
        tracer = jax_nbhelp.last()
        assert tracer is not None
        assert tracer.code.startswith("JNH3")
        assert not any("interpret" in note.lower() for note in presented(tracer).notes)
        kernel = ("pl.pallas_call(lambda x_ref, o_ref: o_ref.__setitem__(..., x_ref[...]),\n"
                  "               out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),\n"
                  "               interpret=False)(jnp.ones((8, 128)))")
        loaded.ok("%jax_nbhelp interpret off")
        assert loaded.run(kernel).error is not None
        loaded.ok("%jax_nbhelp interpret on")
        found = jax_nbhelp.last()
        assert found is not None
        assert found.concerns_kernel
        assert any("is on for this kernel" in note for note in presented(found).notes)
    finally:
        loaded.ok("%jax_nbhelp interpret off")
