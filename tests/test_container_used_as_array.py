"""JNH546: an array's attribute asked of a list, tuple or dict of JAX arrays
(``losses.mean()``), in a real IPython shell with real JAX. Python raises it at the attribute
lookup; it counts as JAX's only where the container holds JAX arrays or tracers."""

from __future__ import annotations

from conftest import Notebook


def test_a_list_of_losses_is_stacked(loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp\nlosses = []\nfor s in range(4):\n"
              "    losses.append(jnp.array(float(s)))")
    failed = loaded.run("average = losses.mean()")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH546"
    assert "a list of 4 JAX arrays of shape ()" in bundle["explanation"]
    assert bundle["fixes"][0]["label"] == "Use jnp.stack(losses)"
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert float(loaded["average"]) == 1.5


def test_a_list_handed_to_jit_arrives_as_tracers(loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp\n@jax.jit\ndef scaled(x):\n"
              "    return x.reshape(-1) * 2")
    failed = loaded.run("out = scaled([1.0, 2.0])")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH546"
    assert "jnp.asarray" in " ".join(bundle.get("notes", []))
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["out"].tolist() == [2.0, 4.0]


def test_arrays_of_different_shapes_and_dicts_are_explained(loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp\nragged = [jnp.ones(2), jnp.ones(3)]\n"
              "grads = {'w': jnp.ones(3)}")
    for cell in ("n = ragged.shape", "g = grads.sum()"):
        failed = loaded.run(cell)
        (bundle,) = failed.diagnoses
        assert bundle["code"] == "JNH546", cell
        assert bundle["fixes"] == [], cell


def test_the_same_words_elsewhere_stay_silent(loaded: Notebook) -> None:
    """A list of floats, of NumPy arrays, a user's class, a user's raise of the words."""
    loaded.ok("import jax, jax.numpy as jnp\nimport numpy as np\nfloats = [1.0, 2.0]\n"
              "host = [np.ones(2)]\nclass Box:\n    pass\nbox = Box()")
    for cell in ("m = floats.mean()", "s = host.shape", "s = box.shape",
                 "raise AttributeError(\"'list' object has no attribute 'mean'\")"):
        failed = loaded.run(cell)
        assert failed.error is not None, cell
        assert failed.diagnoses == [], cell


def test_a_list_indexed_with_two_axes_is_stacked(loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp\nrows = [jnp.arange(3.0), jnp.ones(3)]")
    failed = loaded.run("first = rows[:, 0]")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH546"
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["first"].tolist() == [0.0, 1.0]
    # a list of floats indexed so stays silent
    loaded.ok("floats = [1.0, 2.0]")
    failed = loaded.run("f = floats[:, 0]")
    assert failed.error is not None
    assert failed.diagnoses == []
