"""Checking jnp.bincount against np.bincount with large cancelling weights and asserting allclose, which float32 rounding breaks."""

URL = "https://github.com/jax-ml/jax/issues/13472"
KIND = "silent"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''bins = np.array([0, 0, 1, 1, 2, 2])
weights = np.array([1e8 + 1.0, -1e8, 1e8 + 2.0, -1e8, 1e8 + 3.0, -1e8])''',
    '''ref = np.bincount(bins, weights=weights)
out = jnp.bincount(bins, weights=weights, length=3)''',
    "assert np.allclose(ref, np.asarray(out)), (ref, out)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''bins = np.array([0, 0, 1, 1, 2, 2])
weights = np.array([1e8 + 1.0, -1e8, 1e8 + 2.0, -1e8, 1e8 + 3.0, -1e8])''',
    '''ref = np.bincount(bins, weights=weights)
with jax.enable_x64(True):
    out = jnp.bincount(jnp.asarray(bins), weights=jnp.asarray(weights), length=3)''',
    "assert np.allclose(ref, np.asarray(out)), (ref, out)",
)
CHECK = "np.allclose(np.asarray(out), [1.0, 2.0, 3.0])"
