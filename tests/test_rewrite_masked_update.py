"""An .at[mask] update written with jnp.where: before/after strings, then the numbers JAX
computes for each form (eagerly, where the boolean mask is concrete and both run)."""

from __future__ import annotations

import pytest

from jax_nbhelp.rewrite import CannotRewrite
from jax_nbhelp.rewrite.masked_update_to_where import masked_update_to_where


@pytest.mark.parametrize(
    ("source", "lineno", "expected"),
    [
        pytest.param("y = x.at[x < 5].set(0)\n", 1, "y = jnp.where(x < 5, 0, x)\n", id="set"),
        pytest.param("y = x.at[m].add(a - b)\n", 1, "y = jnp.where(m, x + (a - b), x)\n",
                     id="add-parenthesized"),
        pytest.param("y = x.at[(x > 0) & (x < t)].multiply(2.0)\n", 1,
                     "y = jnp.where((x > 0) & (x < t), x * 2.0, x)\n", id="multiply-and-mask"),
        pytest.param("def f(x):\n    return x.at[x < 0].set(-1)\n", 2,
                     "def f(x):\n    return jnp.where(x < 0, -1, x)\n", id="in-a-function"),
        pytest.param("z = x.at[m].set(0)\ny = x.at[m].set(0)\n", 2,
                     "z = x.at[m].set(0)\ny = jnp.where(m, 0, x)\n", id="only-that-line"),
        pytest.param("%matplotlib inline\ny = x.at[m].subtract(1)\n", 2,
                     "%matplotlib inline\ny = jnp.where(m, x - 1, x)\n", id="cell-with-magic"),
    ],
)
def test_rewrite(source: str, lineno: int, expected: str) -> None:
    assert masked_update_to_where(source, lineno) == expected


def test_alias() -> None:
    assert masked_update_to_where("y = x.at[m].set(0)\n", 1, "jax.numpy") == (
        "y = jax.numpy.where(m, 0, x)\n")


@pytest.mark.parametrize("source", ["y = x.at[0].get()\n", "y = x + 1\n",
                                    "y = x.at[m].set(0) + x.at[m].set(1)\n"])
def test_refused(source: str) -> None:
    with pytest.raises(CannotRewrite):
        masked_update_to_where(source, 1)


@pytest.mark.parametrize("update", ["set(0)", "add(10)", "subtract(3)", "multiply(-2)"])
def test_both_forms_compute_the_same_values_and_dtype(update: str) -> None:
    import jax.numpy as jnp

    before = f"y = x.at[x < 3].{update}\n"
    after = masked_update_to_where(before, 1)
    for x in (jnp.arange(6), jnp.linspace(0.0, 5.0, 6)):
        scope: dict[str, object] = {"x": x, "jnp": jnp}
        exec(before, scope)
        expected = scope["y"]
        exec(after, scope)
        assert scope["y"].dtype == expected.dtype  # type: ignore[attr-defined]
        assert scope["y"].tolist() == expected.tolist()  # type: ignore[attr-defined]
