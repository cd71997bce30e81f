"""JNH516: a write into the NumPy view of a JAX array (``np.asarray(x)``), in a real IPython
shell with real JAX. NumPy raises it in the user's statement; it counts as JAX's only where
the array written uses a JAX array's memory."""

from __future__ import annotations

from conftest import Notebook

_SETUP = "import jax, jax.numpy as jnp\nimport numpy as np\nx = jnp.arange(4.0)"


def test_the_view_made_in_an_earlier_cell_becomes_a_copy(loaded: Notebook) -> None:
    loaded.ok(_SETUP)
    loaded.ok("scores = np.asarray(x)\nprint('made')")
    failed = loaded.run("scores[scores > 1] = 0.0")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH516"
    fix = bundle["fixes"][0]
    assert fix["label"] == "Copy it with np.array"
    assert "scores = np.array(x)" in fix["diff"]
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["scores"].tolist() == [0.0, 1.0, 0.0, 0.0]
    assert loaded["x"].tolist() == [0.0, 1.0, 2.0, 3.0]  # the JAX array is as it was


def test_a_slice_of_the_view_is_explained_without_a_fix(loaded: Notebook) -> None:
    loaded.ok(_SETUP + "\nview = np.asarray(x)\ntail = view[1:]")
    failed = loaded.run("tail *= 2")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH516"
    assert bundle["fixes"] == []


def test_numpys_own_read_only_arrays_stay_silent(loaded: Notebook) -> None:
    loaded.ok(_SETUP + "\nfrozen = np.ones(3)\nfrozen.flags.writeable = False")
    for cell in ("frozen[0] = 2.0", "frozen += 1",
                 "raise ValueError('assignment destination is read-only')"):
        failed = loaded.run(cell)
        assert failed.error is not None, cell
        assert failed.diagnoses == [], cell
