"""Cached decoding step of a small attention layer whose bfloat16 KV cache receives float32 projections."""

URL = "https://github.com/google/tunix/issues/1321"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    """params = {
    "w_k": jnp.array([[0.5, 0.25], [0.25, 0.5]], dtype=jnp.float32),
    "w_v": jnp.eye(2, dtype=jnp.float32),
}
cache = {
    "k": jnp.zeros((1, 4, 2), dtype=jnp.bfloat16),
    "v": jnp.zeros((1, 4, 2), dtype=jnp.bfloat16),
}

@jax.jit
def decode_step(params, cache, x, pos):
    k_new = x @ params["w_k"]
    v_new = x @ params["w_v"]
    idx = (0, pos, 0)
    return {
        "k": jax.lax.dynamic_update_slice(cache["k"], k_new[:, None, :], idx),
        "v": jax.lax.dynamic_update_slice(cache["v"], v_new[:, None, :], idx),
    }""",
    "cache = decode_step(params, cache, jnp.array([[1.0, 2.0]]), 2)",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """params = {
    "w_k": jnp.array([[0.5, 0.25], [0.25, 0.5]], dtype=jnp.float32),
    "w_v": jnp.eye(2, dtype=jnp.float32),
}
cache = {
    "k": jnp.zeros((1, 4, 2), dtype=jnp.bfloat16),
    "v": jnp.zeros((1, 4, 2), dtype=jnp.bfloat16),
}

@jax.jit
def decode_step(params, cache, x, pos):
    k_new = (x @ params["w_k"]).astype(cache["k"].dtype)
    v_new = (x @ params["w_v"]).astype(cache["v"].dtype)
    idx = (0, pos, 0)
    return {
        "k": jax.lax.dynamic_update_slice(cache["k"], k_new[:, None, :], idx),
        "v": jax.lax.dynamic_update_slice(cache["v"], v_new[:, None, :], idx),
    }""",
    "cache = decode_step(params, cache, jnp.array([[1.0, 2.0]]), 2)",
)
CHECK = ("cache['k'].dtype == jnp.bfloat16 and cache['k'][0, 2].astype(jnp.float32).tolist() == [1.0, 1.25] "
         "and cache['v'][0, 2].astype(jnp.float32).tolist() == [1.0, 2.0] "
         "and float(cache['k'].astype(jnp.float32).sum()) == 2.25")
