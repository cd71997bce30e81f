"""The explained card's contract fix for ``lax.map`` given a Python tuple or list of records
whose arrays differ in length from record to record (``_contract_mapped``): each record
mapped by a loop; in a real IPython shell with real JAX."""

from __future__ import annotations

from conftest import Notebook

_RECORDS = ("import jax, jax.numpy as jnp\n"
            "trials = (\n"
            "    {'t': jnp.arange(3.0), 'v': jnp.ones(3)},\n"
            "    {'t': jnp.arange(2.0), 'v': jnp.full(2, 2.0)},\n"
            "    {'t': jnp.arange(4.0), 'v': jnp.zeros(4)},\n"
            ")")


def test_each_record_mapped(loaded: Notebook) -> None:
    loaded.ok(_RECORDS + "\ndef score(trial):\n    return jnp.sum(trial['t'] * trial['v'])")
    failed = loaded.run("scores = jax.lax.map(score, trials)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH001"
    fix = bundle["fixes"][0]
    assert fix["label"] == "Call score on each of the 3 records"
    assert fix["safe"]
    assert "jnp.stack([score(trial) for trial in trials])" in fix["diff"]
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["scores"].tolist() == [3.0, 2.0, 0.0]


def test_a_function_returning_parts_gets_each_part_stacked(loaded: Notebook) -> None:
    loaded.ok(_RECORDS + "\nfrom jax import lax\ndef stats(trial):\n"
              "    return trial['t'].sum(), trial['v'].max()")
    failed = loaded.run("sums, peaks = lax.map(stats, list(trials))")
    (bundle,) = failed.diagnoses
    fix = bundle["fixes"][0]
    assert "jax.tree.map(lambda *parts: jnp.stack(parts)" in fix["diff"]
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["sums"].tolist() == [3.0, 1.0, 6.0]
    assert loaded["peaks"].tolist() == [1.0, 2.0, 0.0]


def test_bare_arrays_side_by_side_get_no_fix(loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp\nxs = jnp.ones(4)\nys = jnp.ones(3)")
    failed = loaded.run("out = jax.lax.map(lambda p: p[0] + p[1], (xs, ys))")
    (bundle,) = failed.diagnoses
    assert bundle["fixes"] == []


def test_records_of_one_length_are_not_this(loaded: Notebook) -> None:
    # a record whose own arrays differ: not one length per record
    loaded.ok("import jax, jax.numpy as jnp\n"
              "pair = {'a': jnp.ones(2), 'b': jnp.ones(3)}\npairs = (pair, dict(pair))")
    failed = loaded.run("out = jax.lax.map(lambda r: r['a'].sum(), pairs)")
    (bundle,) = failed.diagnoses
    assert not any(f["label"].startswith("Call ") for f in bundle["fixes"])
