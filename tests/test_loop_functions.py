"""The function a loop is given, read where the user wrote it (catalog/_passed_function.py), in
a real IPython shell with real JAX: a while_loop condition that returns a number or a boolean
array of one element (JNH533), and a fori_loop body that takes no index (an explained card's
contract fix)."""

from __future__ import annotations

from conftest import Notebook

IMPORTS = "import jax, jax.numpy as jnp\nfrom jax import lax"


def _card(loaded: Notebook, setup: str, cell: str) -> dict:
    return loaded.card(IMPORTS, setup, failing=cell)


def _fixed(loaded: Notebook, bundle: dict) -> str:
    assert bundle["recommended"] is not None
    out = loaded.run(f"%jax_nbhelp fix {bundle['recommended']}").stdout
    assert "Fixed:" in out, out
    return bundle["fixes"][bundle["recommended"] - 1]["label"]


def test_a_number_as_the_condition_of_a_def_is_compared_with_zero(loaded: Notebook) -> None:
    bundle = _card(loaded, "def keep_going(n):\n    return n\n\ndef step(n):\n    return n - 1",
                   "left = lax.while_loop(keep_going, step, 5)")
    assert bundle["code"] == "JNH533"
    assert _fixed(loaded, bundle) == "Return n != 0"
    assert int(loaded["left"]) == 0


def test_a_one_element_boolean_array_condition_takes_all(loaded: Notebook) -> None:
    bundle = _card(loaded, "limit = jnp.array([3.0])",
                   "y = lax.while_loop(lambda c: c < limit, lambda c: c + 1.0, 0.0)")
    assert _fixed(loaded, bundle) == "Return (c < limit).all()"
    assert float(loaded["y"]) == 3.0


def test_a_longer_boolean_array_is_the_users_choice(loaded: Notebook) -> None:
    bundle = _card(loaded, "limits = jnp.array([2.0, 3.0])",
                   "y = lax.while_loop(lambda c: c < limits, lambda c: c + 1, jnp.zeros(2))")
    assert bundle["code"] == "JNH533"
    assert bundle["fixes"] == []
    assert any(".any()" in note for note in bundle["notes"])


def test_a_fori_body_of_the_value_only_gets_a_body_that_ignores_the_index(
        loaded: Notebook) -> None:
    bundle = _card(loaded, "def double(v):\n    return v * 2",
                   "out = lax.fori_loop(0, 5, double, jnp.ones(2))")
    assert bundle["explained"] is True
    fix = bundle["fixes"][0]
    assert "lambda i, carry: double(carry)" in fix["diff"]
    assert _fixed(loaded, bundle) == "Body that ignores the index"
    assert loaded["out"].tolist() == [32.0, 32.0]


def test_a_fori_lambda_of_one_parameter_gets_the_index_first(loaded: Notebook) -> None:
    bundle = _card(loaded, "", "out = lax.fori_loop(0, 4, lambda t: t * 2.0, 1.0)")
    assert "lambda i, t: t * 2.0" in bundle["fixes"][0]["diff"]
    _fixed(loaded, bundle)
    assert float(loaded["out"]) == 16.0
