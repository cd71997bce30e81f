"""JNH545: a JAX function's result unpacked into another count of names (``key, k1, k2 =
jax.random.split(key)``), in a real IPython shell with real JAX. Python raises it at the
user's assignment; it counts as JAX's only where the value came from a call of JAX's named
on the line."""

from __future__ import annotations

from conftest import Notebook

_LOSS = ("import jax, jax.numpy as jnp\n"
         "def loss(w, x):\n    pred = x * w\n    return jnp.sum(pred ** 2), pred\n"
         "w = jnp.array([1.0, 2.0])\nx = jnp.array([3.0, 4.0])")


def test_three_keys_from_split(loaded: Notebook) -> None:
    loaded.ok("import jax\nkey = jax.random.key(0)")
    failed = loaded.run("key, init_key, noise_key = jax.random.split(key)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH545"
    assert "makes 2 keys" in bundle["explanation"]
    assert bundle["fixes"][0]["label"] == "Split into 3 keys"
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    expected = jax_split_three()
    assert [str(k) for k in (loaded["key"], loaded["init_key"], loaded["noise_key"])] == \
        expected


def jax_split_three() -> list[str]:
    import jax
    return [str(k) for k in jax.random.split(jax.random.key(0), 3)]


def test_a_num_given_and_raw_keys(loaded: Notebook) -> None:
    loaded.ok("import jax\nrng = jax.random.PRNGKey(1)")
    failed = loaded.run("a, b, c, d = jax.random.split(rng, num=3)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH545"
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["d"].shape == (2,)


def test_value_and_grad_with_aux_names_grouped(loaded: Notebook) -> None:
    loaded.ok(_LOSS)
    failed = loaded.run("value, grads, pred = jax.value_and_grad(loss, has_aux=True)(w, x)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH545"
    assert "((value, aux), gradient)" in bundle["explanation"]
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert float(loaded["value"]) == 73.0
    assert loaded["grads"].tolist() == [18.0, 64.0]
    assert loaded["pred"].tolist() == [3.0, 8.0]


def test_names_that_do_not_say_which_is_the_gradient_are_explained(loaded: Notebook) -> None:
    loaded.ok(_LOSS)
    failed = loaded.run("a, b, c = jax.value_and_grad(loss, has_aux=True)(w, x)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH545"
    assert bundle["fixes"] == []


def test_other_unpackings_stay_silent(loaded: Notebook) -> None:
    """A user's function, a tuple display, a NumPy call, a user's raise of the words."""
    loaded.ok("import jax, jax.numpy as jnp\nimport numpy as np\n"
              "def pair():\n    return jnp.ones(2), jnp.zeros(2)")
    for cell in ("a, b, c = pair()", "a, b, c = (jnp.ones(1), 2)", "a, b, c = np.ones(2)",
                 "raise ValueError('not enough values to unpack (expected 3, got 2)')"):
        failed = loaded.run(cell)
        assert failed.error is not None, cell
        assert failed.diagnoses == [], cell


def test_a_computed_count_is_explained_not_changed(loaded: Notebook) -> None:
    loaded.ok("import jax\nkey = jax.random.key(0)\nn_envs = 4")
    failed = loaded.run("key, env_key = jax.random.split(key, n_envs)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH545"
    assert bundle["fixes"] == []
