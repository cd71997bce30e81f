"""Outcomes that say what happened: a fix that changes what the program computes ran, but did
not fix the program as written, and no form of its outcome says "Fixed"; the batch of keys
gets the draw of the shape its call asked for as the recommended fix."""

from __future__ import annotations

import pytest
from conftest import Notebook

from jax_nbhelp.show.view import card_view, outcome_view

KEYS = "import jax\nkey = jax.random.key(0)\nkeys = jax.random.split(key, 8)"


@pytest.mark.parametrize("shape", ["shape=(8,)", "(8,)", "8", "(n,)", "x.shape[:1]", "size"])
def test_the_batch_of_keys_gets_the_shape_it_asked_for(loaded: Notebook, shape: str) -> None:
    loaded.ok(KEYS + "\nimport jax.numpy as jnp\nn = 8\nx = jnp.zeros((8, 3))\nsize = (8,)")
    failed = loaded.run(f"out = jax.random.normal(keys, {shape})")
    assert failed.error is not None
    import jax_nbhelp

    diagnosis = jax_nbhelp.last()
    view = card_view(diagnosis)
    assert [fix.label for fix in diagnosis.fixes] == ["Draw one value per key",
                                                      "Draw once per key with jax.vmap"]
    assert view.recommended == 1
    # the other fix names both shapes, in its line and its outcome
    assert "(8, 8)" in view.fixes[1].line
    assert "(8,)" in view.fixes[1].line
    other = diagnosis.fixes[1].apply()
    assert other.ok
    assert other.safe is False
    assert loaded["out"].shape == (8, 8)
    outcome = outcome_view(diagnosis.fixes[1], other)
    for said in (str(other), outcome.headline + " " + outcome.text, outcome.markdown):
        assert "Fixed" not in said, said
        assert "fixed)" not in said, said
    assert outcome.kind == "changed"
    assert str(other).startswith("Ran without error: changes what the program computes.")
    assert "`out` has shape (8, 8); the call asked for (8,)" in str(other)
    # the recommended fix gives the (8,) asked for, and is Fixed
    recommended = diagnosis.fixes[0].apply()
    assert recommended.ok
    assert recommended.safe
    assert loaded["out"].shape == (8,)
    assert str(recommended).startswith("Fixed:")


def test_the_doctor_never_applies_a_fix_that_changes_the_program(loaded: Notebook) -> None:
    """Its --fix applies the card's recommended fix, which is never one that is not safe."""
    loaded.ok(KEYS)
    loaded.run("out = jax.random.normal(keys, (8, 2))")
    import jax_nbhelp

    diagnosis = jax_nbhelp.last()
    assert [fix.safe for fix in diagnosis.fixes] == [False]
    assert card_view(diagnosis).recommended is None


CHECKED = ("from jax.experimental import checkify\nimport jax.numpy as jnp\n"
           "def positive_log(x):\n"
           "    checkify.check(x > 0, 'x must be positive, got {}', x)\n"
           "    return jnp.log(x)")


@pytest.mark.parametrize("cell", [
    "err, out = checkify.checkify(jax.jit(positive_log))(-1.0)\nerr.throw()",
    "err, out = jax.jit(checkify.checkify(positive_log))(-1.0)\ncheckify.check_error(err)",
    "err, out = checkify.checkify(positive_log)(jnp.float32(-1.0))\nerr.throw()",
])
def test_the_users_own_failed_check_gets_no_card(loaded: Notebook, cell: str) -> None:
    loaded.ok("import jax\n" + CHECKED)
    failed = loaded.run(cell)
    assert type(failed.error).__name__ == "JaxRuntimeError"
    assert "x must be positive" in str(failed.error)
    assert failed.diagnoses == []
    assert "x must be positive" in failed.stdout + failed.stderr  # IPython's traceback


def test_a_check_of_jaxs_own_gets_its_card(loaded: Notebook) -> None:
    loaded.ok("import jax\n" + CHECKED)
    failed = loaded.run("err, out = checkify.checkify(jnp.log, errors=checkify.float_checks)"
                        "(-jnp.ones(2))\nerr.throw()")
    assert [d["code"] for d in failed.diagnoses] == ["JNH582"]
    assert "computes log, and its result holds a NaN" in failed.diagnoses[0]["explanation"]


def test_the_users_failed_check_inside_a_callback_gets_no_card(loaded: Notebook) -> None:
    loaded.ok("import jax\n" + CHECKED)
    failed = loaded.run(
        "def in_callback(token):\n"
        "    err, _ = checkify.checkify(positive_log)(jnp.float32(-1.0))\n"
        "    err.throw()\n"
        "    return token\n"
        "shape = jax.ShapeDtypeStruct((), jnp.float32)\n"
        "jax.jit(lambda t: jax.pure_callback(in_callback, shape, t))(jnp.float32(0))"
        ".block_until_ready()\n")
    assert failed.error is not None
    assert failed.diagnoses == []


@pytest.mark.parametrize(("spec", "said"), [
    ("({'w': 0},)", "keys w where the argument has b w"),
    ("([0, 0],)", "the spec is a list and the argument a dict"),
])
def test_an_in_axes_entry_that_does_not_fit_is_not_called_a_bare_dict(
        loaded: Notebook, spec: str, said: str) -> None:
    """in_axes is a tuple of one entry per argument here: the card says where the entry and
    its argument differ, as JAX's message shows it, and offers no tuple to put it in."""
    loaded.ok("import jax, jax.numpy as jnp\nparams = {'w': jnp.ones(3), 'b': jnp.ones(3)}")
    failed = loaded.run(f"out = jax.vmap(lambda p: p['w'] * p['b'], in_axes={spec})(params)")
    assert failed.error is not None
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH404"
    assert "whole argument tuple" not in bundle["explanation"]
    assert "does not fit its argument's pytree" in bundle["explanation"]
    if "key path" in str(failed.error):  # JAX 0.8 shows the spec and the tree, whole
        assert said in bundle["explanation"]
    assert bundle["fixes"] == []
