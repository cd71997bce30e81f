"""JNH404: arguments vmap maps by default whose arrays have no common first axis, beside a
batch: passed whole (None) where exactly one batch size reads so; in a real IPython shell
with real JAX."""

from __future__ import annotations

from conftest import Notebook

_SETUP = ("import jax, jax.numpy as jnp\n"
          "params = {'w': jnp.ones((3, 2)), 'b': jnp.zeros(2)}\n"
          "def predict(p, x):\n    return x @ p['w'] + p['b']")


def test_parameters_beside_a_batch_are_shared(loaded: Notebook) -> None:
    loaded.ok(_SETUP + "\nxs = jnp.ones((5, 3))")
    failed = loaded.run("ys = jax.vmap(predict)(params, xs)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH404"
    fix = bundle["fixes"][0]
    assert fix["label"] == "Use in_axes=(None, 0)"
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["ys"].shape == (5, 2)


def test_two_readings_are_left_to_the_user(loaded: Notebook) -> None:
    # W could be the batch (3 of them) as well as xs (5): no fix says which
    loaded.ok("import jax, jax.numpy as jnp\nW = jnp.eye(3)\nxs = jnp.ones((5, 3))")
    failed = loaded.run("ys = jax.vmap(lambda w, x: w @ x)(W, xs)")
    (bundle,) = failed.diagnoses
    assert not any(f["label"].startswith("Use in_axes") for f in bundle["fixes"])


def test_an_array_with_a_batch_sized_axis_is_not_shared(loaded: Notebook) -> None:
    # p['w'] has a first axis of 5, the batch's: mapping it was perhaps meant
    loaded.ok("import jax, jax.numpy as jnp\np = {'w': jnp.ones((5, 3)), 'b': jnp.zeros(2)}\n"
              "xs = jnp.ones((5, 3))")
    failed = loaded.run("ys = jax.vmap(lambda p, x: x @ p['w'].T + p['b'][0])(p, xs)")
    (bundle,) = failed.diagnoses
    assert not any(f["label"].startswith("Use in_axes") for f in bundle["fixes"])
