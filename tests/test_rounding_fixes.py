"""Fixes that are the same computation up to float rounding (Fix.rounding), in a real IPython
shell with real JAX: a NumPy or math function under a transformation written with its
jax.numpy twin, a masked float sum or mean written with ``where=``. Such a fix is recommended
where no bit-exact one is, its card says "Same values up to float rounding" (never "Same
results"), and its outcome says Fixed."""

from __future__ import annotations

import pytest
from conftest import Notebook

from jax_nbhelp.core.model import Diagnosis, Fix
from jax_nbhelp.show.view import recommend

IMPORTS = "import jax, jax.numpy as jnp\nimport numpy as np\nimport math\nfrom jax import lax"


def _card(loaded: Notebook, setup: str, cell: str, code: str) -> dict:
    bundle = loaded.card(IMPORTS, setup, failing=cell)
    assert bundle["code"] == code
    return bundle


def _recommended_is_rounding(bundle: dict) -> dict:
    fix = bundle["fixes"][bundle["recommended"] - 1]
    assert fix["safe"] is True
    assert fix["rounding"] is True
    view = bundle["view"]
    assert view["recommended_line"].startswith("Same values up to float rounding.")
    shown = view["fixes"][bundle["recommended"] - 1]
    assert shown["badge"] == "Same values up to float rounding:"
    return fix


def test_numpy_exp_under_grad_is_fixed_with_jnp_up_to_rounding(loaded: Notebook) -> None:
    bundle = _card(loaded, "def energy(x):\n    return np.sum(np.exp(-x ** 2))",
                   "g = jax.grad(energy)(1.0)", "JNH305")
    fix = _recommended_is_rounding(bundle)
    assert fix["label"] == "Use jnp.sum, jnp.exp"
    out = loaded.run(f"%jax_nbhelp fix {bundle['recommended']}").stdout
    assert "Fixed:" in out
    assert abs(float(loaded["g"]) + 2 * 0.36787944) < 1e-5


@pytest.mark.parametrize(("setup", "cell", "code"), [
    ("@jax.jit\ndef double(x):\n    return np.asarray(x) * 2", "out = double(jnp.ones(2))",
     "JNH305"),
    # a masked integer sum: integers add without rounding
    ("@jax.jit\ndef big(x):\n    return x[x > 2].sum()", "y = big(jnp.arange(6))", "JNH304"),
])
def test_a_bit_exact_fix_stays_plain_safe(loaded: Notebook, setup: str, cell: str,
                                          code: str) -> None:
    bundle = _card(loaded, setup, cell, code)
    fix = bundle["fixes"][bundle["recommended"] - 1]
    assert fix["safe"] is True
    assert fix["rounding"] is False
    assert bundle["view"]["recommended_line"].startswith("Same results.")


def test_math_log_under_grad_is_written_with_jnp_log(loaded: Notebook) -> None:
    bundle = _card(loaded, "def nll(p):\n    return -math.log(p)", "g = jax.grad(nll)(0.5)",
                   "JNH303")
    assert "`math.log` of Python's math converts its argument to a Python float" in \
        bundle["explanation"]
    fix = _recommended_is_rounding(bundle)
    assert fix["label"] == "Use jnp.log"
    assert "+    return -jnp.log(p)" in fix["diff"]  # the helper's cell, rewritten
    assert "Fixed:" in loaded.run(f"%jax_nbhelp fix {bundle['recommended']}").stdout
    assert abs(float(loaded["g"]) + 2.0) < 1e-6


def test_math_floor_has_no_twin_and_is_not_rewritten(loaded: Notebook) -> None:
    bundle = _card(loaded, "", "y = jax.grad(lambda t: math.floor(t) * t)(2.5)", "JNH303")
    assert all("jnp.floor" not in fix["label"] for fix in bundle["fixes"])


def test_a_masked_float_mean_is_written_with_where(loaded: Notebook) -> None:
    bundle = _card(loaded, "@jax.jit\ndef positive_mean(x):\n    return x[x > 0].mean()",
                   "y = positive_mean(jnp.array([1.0, -2.0, 3.0]))", "JNH304")
    assert _recommended_is_rounding(bundle)["label"] == "Use jnp.mean(x, where=x > 0)"
    assert "Fixed:" in loaded.run(f"%jax_nbhelp fix {bundle['recommended']}").stdout
    assert float(loaded["y"]) == 2.0


def _fix(label: str, rounding: bool) -> Fix:
    return Fix(label=label, summary="", safety="", safe=True, kind="rewrite", rounding=rounding)


def test_a_bit_exact_fix_is_recommended_before_a_rounding_one() -> None:
    diagnosis = Diagnosis(code="JNH999", name="t", title="t", explanation="e.", why="",
                          error="E", fixes=(_fix("rounding", True), _fix("exact", False)))
    assert recommend(diagnosis) is not None
    assert recommend(diagnosis)[0] == 2  # type: ignore[index]
