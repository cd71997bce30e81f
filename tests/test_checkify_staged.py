"""JNH583: a checkify.check staged without checkify.checkify, in a real IPython shell with
real JAX: the call is run under checkify.checkify (or checkify moved outside jit), and a
check that fails after the fix raises the user's own message, which is theirs."""

from __future__ import annotations

from conftest import Notebook

_SETUP = ("import jax, jax.numpy as jnp\nfrom jax import lax\n"
          "from jax.experimental import checkify\n"
          "def root(v):\n    checkify.check(jnp.all(v >= 0), 'root needs non-negative values')\n"
          "    return jnp.sqrt(v)\n"
          "def pick(kind, v):\n    return lax.switch(kind, [lambda u: u, root], v)")


def test_the_call_runs_under_checkify_and_its_checks_pass(loaded: Notebook) -> None:
    loaded.ok(_SETUP + "\nx = jnp.array([4.0, 9.0])")
    failed = loaded.run("out = pick(1, x)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH583"
    assert bundle["fixes"][0]["label"] == "Run it under checkify.checkify"
    assert "err, out = checkify.checkify(pick)(1, x)\nerr.throw()" in \
        bundle["fixes"][0]["runs"][-1]["source"]
    applied = loaded.run("%jax_nbhelp fix 1").stdout
    assert "\nFixed:" in applied, applied
    assert loaded["out"].tolist() == [2.0, 3.0]


def test_a_check_that_fails_after_the_fix_raises_the_users_message(loaded: Notebook) -> None:
    loaded.ok(_SETUP + "\nx = jnp.array([-4.0, 9.0])")
    loaded.run("out = pick(1, x)")
    applied = loaded.run("%jax_nbhelp fix 1").stdout
    assert "\nFixed:" not in applied, applied
    assert "root needs non-negative values" in applied, applied


def test_a_name_that_is_taken_is_not_overwritten(loaded: Notebook) -> None:
    """``err`` already means something in the cell: the error value gets another name."""
    loaded.ok(_SETUP + "\nx = jnp.array([4.0, 9.0])")
    failed = loaded.run("err = 0.1\nout = pick(1, x) + err")
    assert failed.diagnoses[0]["fixes"] == []
    failed = loaded.run("err = 0.1\nout = pick(1, x)")
    source = failed.diagnoses[0]["fixes"][0]["runs"][-1]["source"]
    assert "check_error, out = checkify.checkify(pick)(1, x)" in source, source
