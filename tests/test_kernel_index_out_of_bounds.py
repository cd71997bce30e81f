"""JNH211 and JNH212 beyond their catalog examples: a pl.ds window past the end is located at
its kernel line, the interpreters' texts are read right, and a user's own error is not JAX's."""

from __future__ import annotations

from conftest import Notebook

from jax_nbhelp.catalog.pallas import kernel_index_out_of_bounds as oob

WINDOW = '''\
def window(x_ref, o_ref):
    i = pl.program_id(0)
    o_ref[...] = x_ref[pl.ds(i * 8 + 1, 8), :]

slide = pl.pallas_call(
    window,
    out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
    grid=(4,),
    in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM)],
    out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
    interpret=pltpu.InterpretParams(),
)
'''


def test_a_pl_ds_window_past_the_end_points_at_its_kernel_line(loaded: Notebook) -> None:
    loaded.ok(WINDOW)
    failed = loaded.run("out = slide(jnp.ones((32, 128)))")
    assert type(failed.error).__name__ == "JaxRuntimeError"
    [diagnosis] = failed.diagnoses
    assert diagnosis["code"] == "JNH211"
    assert diagnosis["location"]["line"].strip() == "o_ref[...] = x_ref[pl.ds(i * 8 + 1, 8), :]"
    assert "[25:33, 0:128] of a VMEM buffer of shape (32, 128)" in diagnosis["explanation"]
    assert diagnosis["fixes"] == []


def test_ranges_are_read_as_a_user_writes_them() -> None:
    assert oob._pretty_range("(8,)") == "[8]"
    assert oob._pretty_range("(slice(32, 40, 1), slice(0, 128, 1))") == "[32:40, 0:128]"
    assert oob._past_end("(8,)", "(8,)").startswith("index 8 on axis 0")
    assert oob._past_end("(slice(0, 8, 1), slice(120, 136, 1))", "(8, 128)").startswith(
        "120:136 on axis 1")


def test_a_users_own_out_of_bounds_text_is_not_claimed(loaded: Notebook) -> None:
    failed = loaded.run(
        "raise IndexError('Out-of-bounds read of (0 0 smem 102): reading [(8,)] but buffer "
        "has shape (8,).')")
    assert failed.diagnoses == []
    failed = loaded.run("raise NotImplementedError('Higher-order primitive run_state')")
    assert failed.diagnoses == []
