"""Normalising per-device count blocks by their global total with lax.psum inside a pmapped function."""

URL = "https://github.com/jax-ml/jax/issues/3120"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def share_of_total(block):
    total = jax.lax.psum(jnp.sum(block), axis_name='shards')
    return block / total

# one row per local device
counts = np.arange(1.0, 7.0).reshape(jax.local_device_count(), -1)''',
    "shares = jax.pmap(share_of_total)(counts)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def share_of_total(block):
    total = jax.lax.psum(jnp.sum(block), axis_name='shards')
    return block / total

# one row per local device
counts = np.arange(1.0, 7.0).reshape(jax.local_device_count(), -1)''',
    "shares = jax.pmap(share_of_total, axis_name='shards')(counts)",
)
CHECK = "np.allclose(np.asarray(shares).ravel(), np.arange(1.0, 7.0) / 21.0, rtol=1e-6)"
