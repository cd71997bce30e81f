"""Cutting a cell's literal array shapes to two blocks per dimension (a quick check of a long
interpreted kernel)."""

from __future__ import annotations

import pytest

from jax_nbhelp.rewrite import CannotRewrite
from jax_nbhelp.rewrite.smaller_input import shrink_shapes, smaller


def test_dimensions_of_many_blocks_become_two_blocks() -> None:
    cell = ("x = jax.random.normal(key, (4096, 4096))\n"
            "y = jnp.ones((4096,))  # a vector\n"
            "z = jnp.zeros((8, 4096), jnp.float32)\n"
            "out = matmul(x, x)")
    assert shrink_shapes(cell, (128,)) == (
        "x = jax.random.normal(key, (256, 256))\n"
        "y = jnp.ones((256,))  # a vector\n"
        "z = jnp.zeros((8, 256), jnp.float32)\n"
        "out = matmul(x, x)")


def test_the_largest_block_that_divides_wins_and_small_sizes_stay() -> None:
    assert smaller(4096, (128, 512)) == 1024
    assert smaller(256, (128,)) == 256  # two blocks: already small
    assert smaller(1000, (128,)) == 1000  # not a whole number of blocks


def test_a_cell_without_such_a_shape_is_refused() -> None:
    with pytest.raises(CannotRewrite):
        shrink_shapes("out = matmul(x, x)", (128,))
    with pytest.raises(CannotRewrite):
        shrink_shapes("x = jnp.ones((256, 256))", (128,))
