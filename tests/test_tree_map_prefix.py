"""JNH541's shallower-tree rule, in a real IPython shell with real JAX: a tree map whose
first tree holds objects of the user's (pytree nodes) where the second holds values walks
the second first; a plain container where a value is gets no such fix."""

from __future__ import annotations

from conftest import Notebook

_SETUP = ("import jax, jax.numpy as jnp\nfrom typing import NamedTuple\n"
          "class Gauss(NamedTuple):\n    mu: jax.Array\n    sigma: jax.Array\n"
          "    def logp(self, x):\n        return -0.5 * ((x - self.mu) / self.sigma) ** 2\n"
          "priors = {'a': Gauss(jnp.array(0.0), jnp.array(1.0)),\n"
          "          'b': Gauss(jnp.array(1.0), jnp.array(2.0))}\n"
          "values = {'a': jnp.array(1.0), 'b': jnp.array(3.0)}\n"
          "def score(d, v):\n    return d.logp(v)")


def test_a_named_function_is_called_with_its_arguments_in_order(loaded: Notebook) -> None:
    loaded.ok(_SETUP)
    failed = loaded.run("lp = jax.tree.map(score, priors, values)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH541"
    fix = bundle["fixes"][0]
    assert "jax.tree.map(lambda y, x: score(x, y), values, priors)" in fix["diff"]
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert {k: float(v) for k, v in loaded["lp"].items()} == {"a": -0.5, "b": -0.5}


def test_a_dict_where_a_value_is_gets_no_swap(loaded: Notebook) -> None:
    loaded.ok(_SETUP + "\nparams = {'w': {'k': jnp.ones(2)}}\nrates = {'w': 0.1}")
    failed = loaded.run("new = jax.tree.map(lambda p, r: p * r, params, rates)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH541"
    assert bundle["fixes"] == []
