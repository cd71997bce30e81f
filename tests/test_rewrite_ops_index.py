"""jax.ops.index_update and its siblings (removed in jax 0.3.2) written with .at: before/after
strings, the refusals, and the keyword method on an array (x.sum(dim=1) -> axis=)."""

from __future__ import annotations

import pytest

from jax_nbhelp.rewrite import CannotRewrite
from jax_nbhelp.rewrite.ops_index_update import ops_index_to_at
from jax_nbhelp.rewrite.renamed_api import rename_keyword


def _ops(dotted: str) -> bool:
    return dotted in {"jax.ops", "ops"}


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param("x = jax.ops.index_update(x, jax.ops.index[1], 5.0)\n",
                     "x = x.at[1].set(5.0)\n", id="update-with-ops-index"),
        pytest.param("y = ops.index_add(a + b, ops.index[:, 1:3], v, unique_indices=True)\n",
                     "y = (a + b).at[:, 1:3].add(v, unique_indices=True)\n",
                     id="add-expression-keyword"),
        pytest.param("y = jax.ops.index_mul(x, idx, 2.0)\n", "y = x.at[idx].multiply(2.0)\n",
                     id="multiply-index-name"),
        pytest.param("y = jax.ops.index_max(x, i, 0.0)\nz = jax.ops.index_min(y, i, 1.0)\n",
                     "y = x.at[i].max(0.0)\nz = y.at[i].min(1.0)\n", id="every-use"),
        pytest.param("%time y = jax.ops.index_update(x, 0, 1.0)\ny = jax.ops.index_update(x, "
                     "0, 1.0)\n", "%time y = jax.ops.index_update(x, 0, 1.0)\ny = x.at[0]."
                     "set(1.0)\n", id="a-magic-line-kept"),
    ],
)
def test_rewrite(source: str, expected: str) -> None:
    assert ops_index_to_at(source, source.count("\n"), _ops) == expected


@pytest.mark.parametrize("source", [
    "y = jax.ops.index_update(x, values=v, idx=i)\n",
    "y = jax.ops.index_update(*args)\n",
    "y = x.at[0].set(1.0)\n",
])
def test_refused(source: str) -> None:
    with pytest.raises(CannotRewrite):
        ops_index_to_at(source, 1, _ops)


def test_method_keyword() -> None:
    source = "s = (a - b).sum(dim=1)\n"
    assert rename_keyword(source, 1, function=lambda dotted: False, old="dim", new="axis",
                          method="sum") == "s = (a - b).sum(axis=1)\n"
