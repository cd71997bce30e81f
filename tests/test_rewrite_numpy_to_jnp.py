"""Turning NumPy calls on traced arrays into jax.numpy calls: before/after strings."""

from __future__ import annotations

import pytest

from jax_nbhelp.rewrite import CannotRewrite, numpy_calls_at, numpy_calls_to_jnp

ALLOWED = {"asarray": (), "sin": (), "sum": ("axis",)}


@pytest.mark.parametrize(
    ("source", "lineno", "expected"),
    [
        pytest.param("y = np.asarray(x) * 2\n", 1, "y = jnp.asarray(x) * 2\n", id="one-call"),
        pytest.param("y = np.sin(np.asarray(x))\n", 1, "y = jnp.sin(jnp.asarray(x))\n",
                     id="nested"),
        pytest.param("y = np.sin(x) * np.sqrt(2.0) + np.pi\n", 1,
                     "y = jnp.sin(x) * np.sqrt(2.0) + np.pi\n", id="constants-kept"),
        pytest.param("a = np.sin(x)\nb = np.sin(x)\n", 2, "a = np.sin(x)\nb = jnp.sin(x)\n",
                     id="only-that-line"),
        pytest.param("y = np.sum(\n    x, axis=0)\n", 2, "y = jnp.sum(\n    x, axis=0)\n",
                     id="multiline-call"),
        pytest.param("%time y = 1\ny = np.sin(x)\n", 2, "%time y = 1\ny = jnp.sin(x)\n",
                     id="cell-with-magic"),
    ],
)
def test_rewrite(source: str, lineno: int, expected: str) -> None:
    assert numpy_calls_to_jnp(source, lineno, ALLOWED) == expected


def test_aliases() -> None:
    assert numpy_calls_to_jnp("y = onp.sin(x)\n", 1, ALLOWED, "onp", "jax.numpy") == (
        "y = jax.numpy.sin(x)\n"
    )


def test_calls_found() -> None:
    assert numpy_calls_at("y = np.sin(np.asarray(x)) + np.sqrt(2.0)\n", 1) == ["sin", "asarray"]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        pytest.param("y = np.unique(x)\n", "not known to behave the same", id="unknown"),
        pytest.param("y = np.sum(x, dtype=int)\n", "dtype=", id="keyword"),
        pytest.param("y = np.sin(*xs)\n", r"\*arguments", id="star"),
        pytest.param("y = x + 1\n", "no np", id="nothing-to-change"),
    ],
)
def test_refusals(source: str, message: str) -> None:
    with pytest.raises(CannotRewrite, match=message):
        numpy_calls_to_jnp(source, 1, ALLOWED)
