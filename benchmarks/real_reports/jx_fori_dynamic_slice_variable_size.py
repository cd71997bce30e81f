"""Cutting variable-size batches out of a packed array inside fori_loop with dynamic_slice_in_dim."""

URL = "https://github.com/jax-ml/jax/issues/2323"
KIND = "diagnose"
CELLS = (
    "import jax, jax.numpy as jnp",
    '''batch_sizes = jnp.array([2, 1, 3])
packed = jnp.arange(6.0)

def body(i, val):
    offset, totals = val
    size = batch_sizes[i]
    chunk = jax.lax.dynamic_slice_in_dim(packed, offset, size)
    return offset + size, totals.at[i].set(chunk.sum())''',
    "offset, totals = jax.lax.fori_loop(0, 3, body, (0, jnp.zeros(3)))",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    '''batch_sizes = jnp.array([2, 1, 3])
packed = jnp.arange(6.0)
positions = jnp.arange(packed.shape[0])

def body(i, val):
    offset, totals = val
    size = batch_sizes[i]
    inside = (positions >= offset) & (positions < offset + size)
    return offset + size, totals.at[i].set(jnp.where(inside, packed, 0.0).sum())''',
    "offset, totals = jax.lax.fori_loop(0, 3, body, (0, jnp.zeros(3)))",
)
CHECK = "totals.tolist() == [1.0, 2.0, 12.0] and int(offset) == 6"
