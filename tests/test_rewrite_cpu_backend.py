"""Before/after tests of the rewrites behind JNH201-JNH205 (pure source, no JAX)."""

from __future__ import annotations

import pytest

from jax_nbhelp.rewrite import CannotRewrite
from jax_nbhelp.rewrite.default_backend import drop_backend
from jax_nbhelp.rewrite.interpret_arg import add_import, set_interpret
from jax_nbhelp.rewrite.num_cores import add_num_cores
from jax_nbhelp.rewrite.operand_in_vmem import operand_to_vmem

TPU = "pltpu.InterpretParams()"


@pytest.mark.parametrize(
    ("before", "lineno", "after"),
    [
        ("f = pl.pallas_call(k, out_shape=o)", 1,
         f"f = pl.pallas_call(k, out_shape=o, interpret={TPU})"),
        ("f = pl.pallas_call(k, out_shape=o, interpret=False)", 1,
         f"f = pl.pallas_call(k, out_shape=o, interpret={TPU})"),
        ("y = pl.pallas_call(k, out_shape=o)(x)", 1,
         f"y = pl.pallas_call(k, out_shape=o, interpret={TPU})(x)"),
        ("@functools.partial(pl.pallas_call, out_shape=o)\ndef k(x_ref, o_ref):\n    pass\n", 2,
         f"@functools.partial(pl.pallas_call, out_shape=o, interpret={TPU})\n"
         "def k(x_ref, o_ref):\n    pass\n"),
        ("@pl.core_map(mesh)\ndef _():\n    pass\n", 1,
         f"@pl.core_map(mesh, interpret={TPU})\ndef _():\n    pass\n"),
        ("f = pl.pallas_call(\n    k,\n    out_shape=o,\n)\n", 1,
         f"f = pl.pallas_call(\n    k,\n    out_shape=o,\n    interpret={TPU},\n)\n"),
        ("f = pl.pallas_call(\n    k,\n    out_shape=o\n)\n", 1,
         f"f = pl.pallas_call(\n    k,\n    out_shape=o,\n    interpret={TPU}\n)\n"),
        ("%%time\nk = plgpu.kernel(body, o)\n", 2,
         f"%%time\nk = plgpu.kernel(body, o, interpret={TPU})\n"),
    ],
)
def test_set_interpret(before: str, lineno: int, after: str) -> None:
    assert set_interpret(before, lineno, TPU) == after


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("k = pl.kernel(body, **options)", "**keyword arguments"),
        ("k = make_kernel(body)", "no pallas_call"),
        ("%time k = pl.pallas_call(body, o)", "IPython syntax"),
    ],
)
def test_set_interpret_refuses(source: str, message: str) -> None:
    with pytest.raises(CannotRewrite, match=message.replace("*", r"\*")):
        set_interpret(source, 1, TPU)


def test_add_import_keeps_a_cell_magic_first() -> None:
    assert add_import("%%time\nx = 1\n", "import a") == "%%time\nimport a\nx = 1\n"
    assert add_import("import a\nx = 1\n", "import a") == "import a\nx = 1\n"


def test_add_num_cores() -> None:
    assert add_num_cores('mesh = pltpu.create_tensorcore_mesh("core")', 1) == (
        'mesh = pltpu.create_tensorcore_mesh("core", num_cores=1)')
    with pytest.raises(CannotRewrite, match="devices"):
        add_num_cores('mesh = pltpu.create_tensorcore_mesh("core", jax.devices())', 1)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ('x = jax.device_put(y, jax.devices("tpu")[0])', "x = jax.device_put(y, jax.devices()[0])"),
        ('n = jax.local_devices(backend="tpu")', "n = jax.local_devices()"),
        ('n = jax.device_count("TPU")', "n = jax.device_count()"),
        ('f = jax.jit(g, backend="tpu")', "f = jax.jit(g)"),
    ],
)
def test_drop_backend(before: str, after: str) -> None:
    assert drop_backend(before, 1, "tpu") == after


def test_drop_backend_needs_a_literal() -> None:
    with pytest.raises(CannotRewrite, match="string"):
        drop_backend("d = jax.devices(name)", 1, "tpu")


def test_operand_to_vmem() -> None:
    before = ("f = pl.pallas_call(k, out_shape=o, in_specs=[pl.BlockSpec(memory_space=pl.ANY)],"
              " out_specs=pl.BlockSpec(memory_space=pltpu.HBM))")
    assert operand_to_vmem(before, 1, 0) == before.replace(
        "in_specs=[pl.BlockSpec(memory_space=pl.ANY)]", "in_specs=[pl.BlockSpec()]")
    assert operand_to_vmem(before, 1, 1) == before.replace(
        "out_specs=pl.BlockSpec(memory_space=pltpu.HBM)", "out_specs=pl.BlockSpec()")
    blocked = "f = pl.pallas_call(k, in_specs=[pl.BlockSpec((8, 128), memory_space=pl.ANY)])"
    with pytest.raises(CannotRewrite, match="plain BlockSpec"):
        operand_to_vmem(blocked, 1, 0)
