"""The explained card's contract fixes for one key unpacked into several and for an integer
point given to ``jax.jvp`` (``_contract_inputs``); in a real IPython shell with real JAX."""

from __future__ import annotations

import pytest
from conftest import Notebook


def test_one_key_unpacked_into_three_is_split(loaded: Notebook) -> None:
    loaded.ok("import jax\nkey = jax.random.key(7)")
    failed = loaded.run("k1, k2, k3 = key")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH001"
    fix = bundle["fixes"][0]
    assert fix["label"] == "Split key into 3 keys"
    assert "jax.random.split(key, 3)" in fix["diff"]
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    import jax

    expected = jax.random.split(jax.random.key(7), 3)
    assert str(loaded["k3"]) == str(expected[2])


def test_a_raw_key_pair_is_not_this(loaded: Notebook) -> None:
    # a raw uint32[2] key unpacks into two numbers without an error: nothing to say here
    loaded.ok("import jax\nraw = jax.random.PRNGKey(0)\na, b = raw")
    assert int(loaded["a"]) == 0


@pytest.mark.parametrize(("point", "written"), [("3", "3.0"), ("a0", "float(a0)")])
def test_an_integer_point_to_jvp_is_passed_as_a_float(loaded: Notebook, point: str,
                                                      written: str) -> None:
    loaded.ok("import jax, jax.numpy as jnp\na0 = 3\ndef f(a):\n    return a ** 2")
    failed = loaded.run(f"y, t = jax.jvp(f, ({point},), (1.0,))")
    (bundle,) = failed.diagnoses
    fix = bundle["fixes"][0]
    assert fix["label"] == "Pass the point as a float"
    assert f"jax.jvp(f, ({written},), (1.0,))" in fix["diff"]
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert float(loaded["y"]) == 9.0
    assert float(loaded["t"]) == 6.0


def test_an_integer_array_point_is_cast_to_the_tangents_dtype(loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp\nx = jnp.arange(3)\ndef f(a):\n    return a * 2.0")
    failed = loaded.run("y, t = jax.jvp(f, (x,), (jnp.ones(3),))")
    (bundle,) = failed.diagnoses
    assert "x.astype('float32')" in bundle["fixes"][0]["diff"]
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["t"].tolist() == [2.0, 2.0, 2.0]


def test_an_integer_point_linearized_in_an_earlier_cell_starts_as_a_float(
        loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp\ndef residual(a):\n    return a ** 2 - 2.0\n\n"
              "a0 = 3\nr0, J = jax.linearize(residual, a0)")
    failed = loaded.run("(g,) = jax.linear_transpose(J, a0)(r0)")
    (bundle,) = failed.diagnoses
    fix = bundle["fixes"][0]
    assert fix["label"] == "Start a0 at 3.0"
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert float(loaded["g"]) == 42.0  # J^T r0 = 2 * 3 * 7


def test_a_linearized_function_called_with_a_float_tangent(loaded: Notebook) -> None:
    loaded.ok("import jax\na0 = 2\ndef f(a):\n    return a ** 3")
    failed = loaded.run("y, J = jax.linearize(f, a0)\nslope = J(1.0)")
    (bundle,) = failed.diagnoses
    assert bundle["fixes"][0]["label"] == "Start a0 at 2.0"
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert float(loaded["slope"]) == 12.0


def test_an_integer_leaf_keeps_its_value_in_a_gradient_step(loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp\n"
              "params = {'w': jnp.array([1.0, 2.0]), 'idx': jnp.array([1, 0])}\n"
              "def loss(p):\n    return jnp.sum(p['w'][p['idx']] ** 2)")
    loaded.ok("@jax.jit\ndef step(params):\n    g = jax.grad(loss, allow_int=True)(params)\n"
              "    return jax.tree.map(lambda p, d: p - 0.5 * d, params, g)")
    failed = loaded.run("new = step(params)")
    (bundle,) = failed.diagnoses
    fix = bundle["fixes"][0]
    assert fix["label"] == "Keep integer p as it is"
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["new"]["w"].tolist() == [0.0, 0.0]
    assert loaded["new"]["idx"].tolist() == [1, 0]


def test_an_update_that_is_not_the_leaf_plus_a_term_is_left_alone(loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp\n"
              "params = {'w': jnp.array([1.0, 2.0]), 'idx': jnp.array([1, 0])}\n"
              "def loss(p):\n    return jnp.sum(p['w'][p['idx']] ** 2)")
    loaded.ok("@jax.jit\ndef step(params):\n    g = jax.grad(loss, allow_int=True)(params)\n"
              "    return jax.tree.map(lambda p, d: -0.5 * d, params, g)")
    failed = loaded.run("steps = step(params)")
    (bundle,) = failed.diagnoses
    assert bundle["fixes"] == []


def test_an_update_written_as_a_def(loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp\n"
              "params = {'w': jnp.array([1.0, 2.0]), 'idx': jnp.array([1, 0])}\n"
              "def loss(p):\n    return jnp.sum(p['w'][p['idx']] ** 2)\n"
              "def sgd(p, d):\n    return p - 0.5 * d\n"
              "@jax.jit\ndef step(params):\n    g = jax.grad(loss, allow_int=True)(params)\n"
              "    return jax.tree.map(sgd, params, g)")
    failed = loaded.run("new = step(params)")
    (bundle,) = failed.diagnoses
    assert bundle["fixes"][0]["label"] == "Keep integer p as it is"
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["new"]["idx"].tolist() == [1, 0]
