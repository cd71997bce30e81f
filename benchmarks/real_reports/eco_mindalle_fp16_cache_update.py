"""Writing float32 key projections into a float16 attention cache during autoregressive decoding."""

URL = "https://github.com/kuprel/min-dalle/issues/8"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    """cache = jnp.zeros((2, 4, 3), dtype=jnp.float16)   # (batch, max_len, dim)
w_k = jnp.full((3, 3), 0.5, dtype=jnp.float32)

def update_cache(cache, x, step):
    k = x @ w_k
    return jax.lax.dynamic_update_slice(cache, k[:, None, :], (0, step, 0))""",
    """x = jnp.ones((2, 3), dtype=jnp.float32)
cache = update_cache(cache, x, 1)""",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """cache = jnp.zeros((2, 4, 3), dtype=jnp.float16)   # (batch, max_len, dim)
w_k = jnp.full((3, 3), 0.5, dtype=jnp.float32)

def update_cache(cache, x, step):
    k = (x @ w_k).astype(cache.dtype)
    return jax.lax.dynamic_update_slice(cache, k[:, None, :], (0, step, 0))""",
    """x = jnp.ones((2, 3), dtype=jnp.float32)
cache = update_cache(cache, x, 1)""",
)
CHECK = ("cache.dtype == jnp.float16 and float(cache[0, 1, 0]) == 1.5 "
         "and float(cache[1, 0, 0]) == 0.0 and float(cache.astype(jnp.float32).sum()) == 9.0")
