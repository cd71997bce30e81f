"""The concrete values behind a traced index (``catalog/_provenance.py``): an index that JAX
sees as a float inside ``scan``, ``vmap`` or ``jit`` is followed to the array the calling line
passes in; where every value there is whole, writing it as an integer keeps every value, and
the fix is recommended. Each error is raised by real JAX in a real IPython shell."""

from __future__ import annotations

from typing import Any

from conftest import Notebook

_IMPORTS = "import jax, jax.numpy as jnp\nfrom jax import lax"
_TABLE = "w = jnp.array([0.5, 2.0, 3.0])"
_SCANNED = ("def total(d):\n    def step(acc, row):\n"
            "        return acc + w[row[0]] * row[1], None\n"
            "    return lax.scan(step, 0.0, d)[0]\n\nout = jax.jit(total)(d)")


def _card(loaded: Notebook, *cells: str) -> dict[str, Any]:
    loaded.ok(_IMPORTS)
    for cell in cells[:-1]:
        loaded.ok(cell)
    failed = loaded.run(cells[-1])
    assert failed.error is not None
    (bundle,) = failed.diagnoses
    return bundle


def test_a_scanned_rows_whole_slot_id_is_made_an_integer(loaded: Notebook) -> None:
    bundle = _card(loaded, f"{_TABLE}\nd = jnp.array([[0, 1.5], [2, 3.0], [2, 1.0]])", _SCANNED)
    (fix,) = bundle["fixes"]
    assert bundle["recommended"] == 1
    assert fix["safe"]
    assert fix["label"] == 'Use row[0].astype("int32")'
    assert "come from `d`, which In [" in fix["safety"]
    assert "line 6 passes in" in fix["safety"]
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert abs(float(loaded["out"]) - 12.75) < 1e-5


def test_a_fraction_among_the_rows_gets_no_fix(loaded: Notebook) -> None:
    """1.5 is not a slot: which integer was meant is the user's choice."""
    bundle = _card(loaded, f"{_TABLE}\nd = jnp.array([[0, 1.5], [1.5, 3.0]])", _SCANNED)
    assert bundle["fixes"] == []


def test_a_vmapped_lambdas_index_is_read_from_what_vmap_maps_over(loaded: Notebook) -> None:
    bundle = _card(loaded, f"{_TABLE}\nidx = jnp.array([0.0, 2.0, 1.0])",
                   "out = jax.vmap(lambda i: w[i])(idx)")
    assert bundle["recommended"] == 1
    assert bundle["fixes"][0]["safe"]
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["out"].tolist() == [0.5, 3.0, 2.0]


def test_values_behind_a_users_property_are_never_read(loaded: Notebook) -> None:
    """The scanned array comes from a property of the user's class: the card never runs it,
    and reads the array JAX's scan was given instead (in scan's own frame)."""
    bundle = _card(
        loaded, f"{_TABLE}\nreads = []\n\nclass Data:\n    @property\n    def rows(self):\n"
        "        reads.append(1)\n        return jnp.array([[0.0], [2.0]])\n\nholder = Data()",
        "def step(acc, row):\n    return acc + w[row[0]], None\n\n"
        "out = lax.scan(step, 0.0, holder.rows)")
    assert bundle["code"] == "JNH001"
    assert loaded["reads"] == [1]  # the user's line read it once; the card never did
    assert "come from `holder.rows`" in bundle["fixes"][0]["safety"]


def test_rows_of_an_expression_scan_was_given_are_read_in_jaxs_frame(loaded: Notebook) -> None:
    """``jnp.arange(3.0)`` is a call the card never runs: the array JAX's scan was given is
    read in scan's own frame."""
    bundle = _card(loaded, "table = jnp.array([1.0, 10.0, 100.0])\n"
                           "def step(c, i):\n    return c + table[i], None",
                   "total, _ = lax.scan(step, 0.0, jnp.arange(3.0))")
    assert bundle["recommended"] == 1
    assert "come from `jnp.arange(3.0)`" in bundle["fixes"][0]["safety"]
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert float(loaded["total"]) == 111.0
