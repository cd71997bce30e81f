"""JNH510: a JAX array handed to Python's ``json``, in a real IPython shell with real JAX.
Python raises the error, inside json's encoder; it counts as JAX's only where the object
json's frame held is an instance of JAX's array class."""

from __future__ import annotations

from conftest import Notebook

_SETUP = "import json\nimport jax, jax.numpy as jnp\nloss = jnp.float32(0.25)"


def test_a_metrics_dict_is_written_with_its_arrays_as_numbers(loaded: Notebook) -> None:
    loaded.ok(_SETUP)
    failed = loaded.run("record = {'step': 3, 'loss': loss}\ntext = json.dumps(record)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH510"
    assert bundle["recommended"] == 1
    assert bundle["fixes"][0]["safe"]
    applied = loaded.run("%jax_nbhelp fix 1").stdout
    assert "\nFixed:" in applied, applied
    assert loaded["text"] == '{"step": 3, "loss": 0.25}'


def test_the_same_words_from_elsewhere_stay_silent(loaded: Notebook) -> None:
    """A user's own raise of json's words, NumPy's array, and a user's class that shares
    the name of JAX's: none of them is a JAX array in json's frame."""
    loaded.ok(_SETUP + "\nimport numpy as np")
    for cell in ("raise TypeError('Object of type ArrayImpl is not JSON serializable')",
                 "json.dumps({'x': np.ones(2)})",
                 "class ArrayImpl:\n    pass\njson.dumps([ArrayImpl()])"):
        failed = loaded.run(cell)
        assert failed.error is not None
        assert failed.diagnoses == [], cell
