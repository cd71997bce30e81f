"""JNH515: a JAX array's attribute called as PyTorch's method (``x.size(0)``, ``x.T()``), in
a real IPython shell with real JAX. Python raises it in the user's own call; it counts as
JAX's only where the object called through is one of JAX's arrays or tracers."""

from __future__ import annotations

from conftest import Notebook

_SETUP = "import jax, jax.numpy as jnp\nimport numpy as np\nbatch = jnp.ones((8, 3))"


def test_size_of_a_dimension_becomes_shape(loaded: Notebook) -> None:
    loaded.ok(_SETUP)
    failed = loaded.run("rows = batch.size(0)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH515"
    assert bundle["fixes"][0]["label"] == "Use batch.shape[0]"
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["rows"] == 8


def test_size_without_arguments_offers_the_shape_then_the_count(loaded: Notebook) -> None:
    loaded.ok(_SETUP)
    failed = loaded.run("dims = batch.size()")
    (bundle,) = failed.diagnoses
    assert [f["label"] for f in bundle["fixes"]] == ["Use batch.shape", "Use batch.size"]
    assert bundle["recommended"] == 1


def test_a_tracer_inside_jit_gets_the_same_card(loaded: Notebook) -> None:
    loaded.ok(_SETUP + "\n@jax.jit\ndef centred(x):\n    return x - x.sum(0) / x.size(0)")
    failed = loaded.run("out = centred(batch)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH515"
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["out"].shape == (8, 3)


def test_the_same_words_elsewhere_stay_silent(loaded: Notebook) -> None:
    """NumPy's array, a user's class with an int ``size``, a user's raise of the words."""
    loaded.ok(_SETUP + "\nclass Box:\n    size = 3\nbox = Box()")
    for cell in ("n = np.ones(3).size()", "n = box.size()",
                 "raise TypeError(\"'int' object is not callable\")",
                 "n = (3).real()"):
        failed = loaded.run(cell)
        assert failed.error is not None, cell
        assert failed.diagnoses == [], cell
