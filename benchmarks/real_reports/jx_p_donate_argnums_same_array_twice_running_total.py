"""Doubling a running-total buffer on the first step of an in-place accumulation loop, calling a jitted add step that donates its buffer argument with the same array as both buffer and increment."""

URL = "https://github.com/jax-ml/jax/issues/9635"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def accumulate(buffer, increment):
    return buffer + increment

accumulate_inplace = jax.jit(accumulate, donate_argnums=(0,))
totals = jnp.array([1.5, -2.0, 4.0, 0.25])''',
    "totals = accumulate_inplace(totals, totals)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def accumulate(buffer, increment):
    return buffer + increment

accumulate_inplace = jax.jit(accumulate, donate_argnums=(0,))
totals = jnp.array([1.5, -2.0, 4.0, 0.25])''',
    "totals = accumulate_inplace(totals, totals.copy())",
)
CHECK = "np.allclose(np.asarray(totals), 2 * np.array([1.5, -2.0, 4.0, 0.25]))"
