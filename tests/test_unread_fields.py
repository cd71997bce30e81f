"""JNH552's fix for a dict passed to jit with entries that hold no numbers and that the
jitted function never reads (a loader's ids, file names): the call passes the dict without
them; in a real IPython shell with real JAX."""

from __future__ import annotations

from conftest import Notebook

_BATCH = ("import jax, jax.numpy as jnp\nimport numpy as np\n"
          "batch = {'id': np.array([b'x1', b'x2']), 'path': ['a.png', 'b.png'],\n"
          "         'x': np.array([1.0, 2.0]), 'y': np.array([1.0, 0.0])}")


def test_every_unread_entry_without_numbers_is_left_out(loaded: Notebook) -> None:
    loaded.ok(_BATCH + "\n@jax.jit\ndef loss(b):\n    return jnp.sum((b['x'] - b['y']) ** 2)")
    failed = loaded.run("value = loss(batch)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH552"
    fix = bundle["fixes"][0]
    assert "k not in ('id', 'path')" in fix["diff"]
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert float(loaded["value"]) == 4.0
    assert set(loaded["batch"]) == {"id", "path", "x", "y"}  # the user's dict is kept


def test_an_entry_the_function_reads_is_not_left_out(loaded: Notebook) -> None:
    loaded.ok(_BATCH + "\n@jax.jit\ndef loss(b):\n    print(b['id'])\n    return b['x'].sum()")
    failed = loaded.run("value = loss(batch)")
    (bundle,) = failed.diagnoses
    assert not any(f["label"].startswith("Leave") for f in bundle["fixes"])


def test_a_dict_passed_on_whole_is_not_read_here(loaded: Notebook) -> None:
    loaded.ok(_BATCH + "\ndef inner(b):\n    return b['x'].sum()\n"
              "@jax.jit\ndef loss(b):\n    return inner(b)")
    failed = loaded.run("value = loss(batch)")
    (bundle,) = failed.diagnoses
    assert not any(f["label"].startswith("Leave") for f in bundle["fixes"])
