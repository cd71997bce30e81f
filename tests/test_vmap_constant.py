"""JNH303 under vmap: an argument every element of the batch shares, mapped anyway, where the
function needs it as a number, is passed once, unmapped (``_vmap_constant``); in a real
IPython shell with real JAX."""

from __future__ import annotations

from conftest import Notebook

_SETUP = "import jax, jax.numpy as jnp\nlabels = jnp.array([1, 0, 2, 2])"


def test_a_shared_count_is_passed_unmapped(loaded: Notebook) -> None:
    loaded.ok(_SETUP + "\nwidths = jnp.full(4, 3)")
    failed = loaded.run("h = jax.vmap(jax.nn.one_hot)(labels, widths)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH303"
    fix = bundle["fixes"][0]
    assert fix["label"] == "Pass widths unmapped"
    assert "in_axes=(0, None)" in fix["diff"]
    assert "int(widths[0])" in fix["diff"]
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["h"].shape == (4, 3)
    assert loaded["h"][0].tolist() == [0.0, 1.0, 0.0]


def test_counts_that_differ_are_not_unmapped(loaded: Notebook) -> None:
    loaded.ok(_SETUP + "\nwidths = jnp.array([3, 3, 4, 3])")
    failed = loaded.run("h = jax.vmap(jax.nn.one_hot)(labels, widths)")
    (bundle,) = failed.diagnoses
    assert not any(f["label"].endswith("unmapped") for f in bundle["fixes"])


def test_a_vmap_with_in_axes_is_left_to_the_user(loaded: Notebook) -> None:
    loaded.ok(_SETUP + "\nwidths = jnp.full(4, 3)")
    failed = loaded.run("h = jax.vmap(jax.nn.one_hot, in_axes=(0, 0))(labels, widths)")
    (bundle,) = failed.diagnoses
    assert not any(f["label"].endswith("unmapped") for f in bundle["fixes"])
