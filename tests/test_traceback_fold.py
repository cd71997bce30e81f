"""JAX's frames folded out of IPython's traceback where a card explains the error (terminal
IPython here; the browser tests do JupyterLab with and without the extension), and left as
IPython wrote them everywhere else."""

from __future__ import annotations

import pytest
from conftest import Notebook

from jax_nbhelp.shell.traceback_fold import FRONTEND_FOLDS, fold

KERNEL = ("import jax, jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n"
          "def add_one(x_ref, o_ref):\n    o_ref[...] = x_ref[...] + 1\n"
          "kernel = pl.pallas_call(add_one, "
          "out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))")
FAILING = "out = kernel(jnp.ones((8, 128)))"
FOLDED = "inside JAX: `%jax_nbhelp traceback` shows"


def _traceback(out) -> str:
    return out.stdout.split("jax_nbhelp [", 1)[0]


def test_a_carded_error_shows_its_frames_and_folds_jaxs(loaded: Notebook) -> None:
    loaded.ok(KERNEL)
    failed = loaded.run(FAILING)
    assert [d["code"] for d in failed.diagnoses] == ["JNH201"]
    shown = _traceback(failed)
    assert FOLDED in shown
    assert f"----> 1 {FAILING}" in shown  # the user's frame
    assert 'raise ValueError("Only interpret mode is supported on CPU backend.")' in shown
    assert shown.rstrip().endswith("ValueError: Only interpret mode is supported on CPU backend.")
    assert len(shown.strip().splitlines()) <= 30, shown
    whole = loaded.ok("%jax_nbhelp traceback").stdout
    assert FOLDED not in whole
    assert len(whole.splitlines()) > len(shown.splitlines()) + 20
    assert f"----> 1 {FAILING}" in whole


def test_an_error_without_a_card_keeps_ipythons_traceback(loaded: Notebook) -> None:
    failed = loaded.run("{'a': 1}['b']")
    assert failed.diagnoses == []
    assert FOLDED not in failed.stdout
    assert "KeyError" in failed.stdout
    said = loaded.ok("%jax_nbhelp traceback").stdout
    assert "no folded traceback" in said


def test_where_the_frontend_folds_or_the_user_says_no_nothing_is_folded(
        loaded: Notebook, monkeypatch: pytest.MonkeyPatch) -> None:
    loaded.ok(KERNEL)
    monkeypatch.setenv(FRONTEND_FOLDS, "1")
    failed = loaded.run(FAILING)
    assert failed.diagnoses
    assert FOLDED not in failed.stdout
    monkeypatch.delenv(FRONTEND_FOLDS)
    from jax_nbhelp.core.session import current

    current().fold_traceback = False  # as c.JaxNbhelp.fold_traceback = False sets it at load
    failed = loaded.run(FAILING)
    assert failed.diagnoses
    assert FOLDED not in failed.stdout


def test_unload_leaves_ipythons_formatter_as_it_was(nb: Notebook) -> None:
    formatter = nb.shell.InteractiveTB
    assert "structured_traceback" not in formatter.__dict__
    nb.ok("%load_ext jax_nbhelp")
    nb.ok(KERNEL)
    nb.run(FAILING)
    assert "structured_traceback" not in formatter.__dict__
    nb.ok("%unload_ext jax_nbhelp")
    assert "structured_traceback" not in formatter.__dict__


def test_fold_reads_ipython_7_and_8_layouts() -> None:
    inside = lambda path: "/site-packages/jax/" in path  # noqa: E731
    entries = [
        "-----", "ValueError    Traceback (most recent call last)",
        "Cell In[4], line 1\n----> 1 f(x)\n",
        "File /usr/lib/site-packages/jax/_src/pjit.py:12, in cache_miss(*args)\n  code\n",
        "    [... skipping hidden 3 frame]\n",
        "/usr/lib/site-packages/jax/_src/core.py in bind(self, *args)\n  code\n",
        "File /home/me/helpers.py:7, in helper(x)\n  code\n",
        "File /usr/lib/site-packages/jax/_src/lax/lax.py:5, in add(x, y)\n  code\n",
        "File /usr/lib/site-packages/jax/_src/lax/lax.py:9, in check(x, y)\n  raise\n",
        "ValueError: bad",
    ]
    folded = fold(entries, inside)
    assert folded[:3] == entries[:3]
    assert "5 frames inside JAX" in folded[3]  # 1 + 3 hidden + 1
    assert folded[4] == entries[6]  # the user's helper
    assert "1 frame inside JAX" in folded[5]
    assert "shows it" in folded[5]
    assert folded[6:] == entries[8:]  # the frame that raised, and the error
