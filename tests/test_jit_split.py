"""A jitted function split at the statement that needs its inputs' values (``_jit_split``):
the statements up to it run as plain Python at the call, the rest compiled; in a real
IPython shell with real JAX."""

from __future__ import annotations

from conftest import Notebook

_TRIM = ("import jax, jax.numpy as jnp\n"
         "@jax.jit\n"
         "def summary(padded,\n"
         "            scale):\n"
         "    \"\"\"Mean of the recording without its zero padding, scaled.\"\"\"\n"
         "    kept = jnp.trim_zeros(padded)\n"
         "\n"
         "    # the summary itself\n"
         "    total = kept.sum() * scale\n"
         "    return total / kept.size")


def test_split_keeps_the_function_for_every_caller(loaded: Notebook) -> None:
    loaded.ok(_TRIM)
    failed = loaded.run("m = summary(jnp.array([0.0, 1.0, 3.0, 0.0]), 2.0)")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH303"
    fix = bundle["fixes"][0]
    assert fix["label"] == "Compute kept before jit"
    assert fix["safe"]
    assert bundle["recommended"] == 1
    assert "def _summary_compiled(scale, kept):" in fix["diff"]
    assert "# the summary itself" in fix["diff"]  # comments go with their statements
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert float(loaded["m"]) == 4.0
    # another caller, other data, another length: the same function serves it
    loaded.ok("other = summary(jnp.array([0.0, 0.0, 2.0, 2.0, 2.0, 0.0]), 1.0)")
    assert float(loaded["other"]) == 2.0


def test_a_python_number_is_static_for_the_compiled_rest(loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp\n@jax.jit\ndef counts(x):\n"
              "    n = int(x.max())\n    return jnp.zeros(n + 1).at[x].add(1.0)")
    failed = loaded.run("c = counts(jnp.array([0, 3, 3]))")
    (bundle,) = failed.diagnoses
    fix = bundle["fixes"][0]
    assert fix["label"] == "Compute n before jit"
    assert 'static_argnames=("n",)' in fix["diff"]
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["c"].tolist() == [1.0, 0.0, 0.0, 2.0]


def test_a_method_is_not_split(loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp\nclass Box:\n    @jax.jit\n"
              "    def trimmed(x):\n        y = jnp.trim_zeros(x)\n        return y.sum()")
    failed = loaded.run("r = Box.trimmed(jnp.array([0.0, 1.0, 0.0]))")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH303"
    assert bundle["fixes"] == []


def test_jit_with_settings_is_not_split(loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp\nfrom functools import partial\n"
              "@partial(jax.jit, static_argnames='k')\n"
              "def trimmed(x, k):\n    y = jnp.trim_zeros(x)\n    return y.sum() * k")
    failed = loaded.run("r = trimmed(jnp.array([0.0, 1.0, 0.0]), 2)")
    (bundle,) = failed.diagnoses
    assert not any(f["label"].endswith("before jit") for f in bundle["fixes"])


def test_a_mask_from_a_function_of_the_users(loaded: Notebook) -> None:
    loaded.ok("import jax, jax.numpy as jnp\ndef over(v):\n    return v > v.mean()\n"
              "@jax.jit\ndef above(x):\n    y = x[over(x)]\n    return y.mean()")
    failed = loaded.run("m = above(jnp.array([1.0, 5.0, 2.0, 8.0]))")
    (bundle,) = failed.diagnoses
    assert bundle["code"] == "JNH304"
    assert bundle["fixes"][0]["label"] == "Compute y before jit"
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert float(loaded["m"]) == 6.5

