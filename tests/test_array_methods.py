"""JNH508: a method a JAX array does not have (PyTorch's, NumPy's in-place ones, older
JAX's), raised by Python's own attribute lookup on a concrete array or by a tracer's, in a
real IPython shell. The user's own objects stay silent."""

from __future__ import annotations

from conftest import Notebook

_IMPORTS = "import jax, jax.numpy as jnp\nx = jnp.arange(3.0)"


def test_a_pytorch_method_on_an_array_is_spelled_the_jax_way(loaded: Notebook) -> None:
    loaded.ok(_IMPORTS)
    failed = loaded.run("y = x.unsqueeze(0) * 2")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH508"
    assert [fix["label"] for fix in bundle["fixes"]] == ["Use jnp.expand_dims(x, 0)"]
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["y"].tolist() == [[0.0, 2.0, 4.0]]


def test_each_call_of_the_method_on_the_line_is_rewritten(loaded: Notebook) -> None:
    loaded.ok(_IMPORTS)
    failed = loaded.run("p = x.exp() / x.exp().sum()")
    (bundle,) = failed.diagnoses
    (fix,) = bundle["fixes"]
    assert "jnp.exp(x) / jnp.exp(x).sum()" in fix["diff"]
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert abs(float(loaded["p"].sum()) - 1.0) < 1e-6


def test_an_in_place_numpy_method_is_explained_without_a_fix(loaded: Notebook) -> None:
    loaded.ok(_IMPORTS)
    failed = loaded.run("x.fill(2.0)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH508"
    assert bundle["fixes"] == []
    assert "in place" in " ".join(bundle["notes"])


def test_a_missing_attribute_of_the_users_own_object_stays_silent(loaded: Notebook) -> None:
    loaded.ok(_IMPORTS + "\n\nclass Box:\n    pass")
    failed = loaded.run("y = Box().unsqueeze(0)")
    assert failed.error is not None
    assert failed.diagnoses == []
