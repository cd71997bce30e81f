"""JNH565: a jax.lax elementwise operation given arrays of different ranks, in a real IPython
shell with real JAX. The jax.numpy function of the same operation is recommended only where
every operand fits the result's axes in one way; integer division has no such function."""

from __future__ import annotations

import pytest
from conftest import Notebook, validate_bundle


def _card(loaded: Notebook, setup: str, cell: str) -> dict:
    loaded.ok("import jax, jax.numpy as jnp\nfrom jax import lax\n" + setup)
    failed = loaded.run(cell)
    assert failed.error is not None
    (bundle,) = failed.diagnoses
    validate_bundle(bundle)
    assert bundle["code"] == "JNH565"
    return bundle


def test_a_vector_and_a_matrix_it_fits_one_way(loaded: Notebook) -> None:
    bundle = _card(loaded, "b = jnp.arange(3.0)\nx = jnp.ones((2, 3))", "y = lax.max(x, b)")
    assert "`x` is float32[2, 3] and `b` is float32[3]" in bundle["cause"]
    assert [f["label"] for f in bundle["fixes"]] == ["Use jnp.maximum"]
    assert bundle["recommended"] == 1
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["y"].tolist() == [[1.0, 1.0, 2.0], [1.0, 1.0, 2.0]]


def test_a_vector_that_fits_a_square_matrix_two_ways_is_not_recommended(
        loaded: Notebook) -> None:
    bundle = _card(loaded, "b = jnp.arange(3.0)\nx = jnp.ones((3, 3))", "y = lax.add(x, b)")
    (fix,) = bundle["fixes"]
    assert fix["safe"] is False
    assert "fits 2 ways" in fix["safety"]
    assert bundle["recommended"] is None


@pytest.mark.parametrize(("setup", "cell"), [
    # lax.div of integers truncates; jnp.divide does not: no fix
    ("b = jnp.arange(1, 4)\nx = jnp.ones((2, 3), int)", "y = lax.div(x, b)"),
    # the operation is not spelled as jax.lax's on the line: what it is is not read
    ("from jax.lax import add", "y = add(jnp.ones((2, 3)), jnp.ones(3))"),
])
def test_no_fix_where_jax_numpy_would_compute_otherwise_or_the_call_is_not_read(
        loaded: Notebook, setup: str, cell: str) -> None:
    assert _card(loaded, setup, cell)["fixes"] == []


def test_a_predicate_of_another_rank_is_broadcast_by_where(loaded: Notebook) -> None:
    bundle = _card(loaded, "x = jnp.arange(6.0).reshape(2, 3)\nm = jnp.array([True, False, True])",
                   "y = lax.select(m, x, jnp.zeros((2, 3)))")
    assert bundle["recommended"] == 1
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["y"].tolist() == [[0.0, 0.0, 2.0], [3.0, 0.0, 5.0]]
