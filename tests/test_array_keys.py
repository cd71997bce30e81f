"""JNH509: a JAX array used as a dict key or set member, in a real IPython shell with real
JAX. Python raises the error, at the user's subscript; it counts as JAX's because JAX's
array types refuse a hash by design, and the message names one of them (read from JAX's
classes). A loop over an integer array iterates ``tolist()``; a loop whose first statement
raised, for a reason every item shares, runs again from its start as if once."""

from __future__ import annotations

from conftest import Notebook

_SETUP = ("import jax, jax.numpy as jnp\n"
          "table = {0: 'a', 1: 'b', 2: 'c'}\n"
          "ids = jnp.array([2, 0, 2, 1])")


def test_a_loop_over_repeated_ids_runs_again_from_its_start_as_if_once(
        loaded: Notebook) -> None:
    """The ids repeat, so the iteration that raised cannot be told by its value; the key is
    hashed by the body's first statement for every item alike, so it was the first."""
    loaded.ok(_SETUP)
    failed = loaded.run("seen = []\nfor i in ids:\n    name = table[i]\n    seen.append(name)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH509"
    assert "`i` is a JAX array (int32[])" in bundle["explanation"]
    assert bundle["recommended"] == 1
    assert bundle["fixes"][0]["safe"]
    preview = loaded.run("%jax_nbhelp preview 1").stdout
    assert "its first iteration raised at line 3, its first statement" in preview
    applied = loaded.run("%jax_nbhelp fix 1").stdout
    assert "\nFixed:" in applied, applied
    assert loaded["seen"] == ["c", "a", "c", "b"]


def test_a_key_hashed_after_another_statement_says_what_runs_again(loaded: Notebook) -> None:
    """The first statement ran before the key was hashed: the loop runs again from its
    start, and the outcome says so rather than "Fixed"."""
    loaded.ok(_SETUP)
    loaded.run("seen = []\nfor i in ids:\n    seen.append(1)\n    name = table[i]")
    applied = loaded.run("%jax_nbhelp fix 1").stdout
    assert "Ran, but not as if once" in applied, applied


def test_a_key_hashed_only_in_one_branch_is_not_taken_as_the_first_iteration(
        loaded: Notebook) -> None:
    loaded.ok(_SETUP)
    loaded.run("seen = []\nfor i in ids:\n    seen.append(table[i] if len(seen) > 1 else 'x')")
    applied = loaded.run("%jax_nbhelp fix 1").stdout
    assert "Ran, but not as if once" in applied, applied


def test_a_float_key_and_a_traced_key_get_no_fix(loaded: Notebook) -> None:
    loaded.ok(_SETUP + "\nrates = {0.5: 'half'}\nr = jnp.array([0.5])")
    (bundle,) = loaded.run("names = [rates[v] for v in r]").diagnoses
    assert bundle["code"] == "JNH509"
    assert bundle["fixes"] == []
    loaded.ok("@jax.jit\ndef pick(k):\n    return jnp.ones(2) * {0: 1.0, 1: 2.0}[k]")
    (traced,) = loaded.run("out = pick(1)").diagnoses
    assert traced["code"] == "JNH509"
    assert traced["fixes"] == []
    assert "is a JAX tracer" in traced["explanation"]
    assert any("table[i]" in note for note in traced["notes"])


def test_the_users_own_unhashable_errors_stay_silent(loaded: Notebook) -> None:
    loaded.ok(_SETUP)
    for cell in ("{[1, 2]: 'list'}",
                 "raise TypeError(\"unhashable type: 'jaxlib._jax.ArrayImpl'\")",
                 "class Box:\n    __hash__ = None\n{Box(): 1}"):
        failed = loaded.run(cell)
        assert failed.error is not None, cell
        assert failed.diagnoses == [], cell
