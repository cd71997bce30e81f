"""Inverting a small half-precision (float16) covariance matrix with jax.scipy.linalg.inv to whiten a few stored feature vectors."""

URL = "https://github.com/jax-ml/jax/issues/38825"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport jax.scipy.linalg\nimport numpy as np",
    '''cov = jnp.array([[4.0, 1.0, 0.0],
                 [1.0, 3.0, 0.5],
                 [0.0, 0.5, 2.0]], dtype=jnp.float16)
feats = jnp.array([[1.0, 2.0, 0.5],
                   [0.0, -1.0, 1.5]], dtype=jnp.float16)''',
    "precision = jax.scipy.linalg.inv(cov)\nwhitened = feats @ precision",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport jax.scipy.linalg\nimport numpy as np",
    '''cov = jnp.array([[4.0, 1.0, 0.0],
                 [1.0, 3.0, 0.5],
                 [0.0, 0.5, 2.0]], dtype=jnp.float16)
feats = jnp.array([[1.0, 2.0, 0.5],
                   [0.0, -1.0, 1.5]], dtype=jnp.float16)''',
    "precision = jax.scipy.linalg.inv(cov.astype(jnp.float32))\nwhitened = feats.astype(jnp.float32) @ precision",
)
CHECK = "np.allclose(np.asarray(whitened), np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 1.5]]) @ np.linalg.inv(np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 0.5], [0.0, 0.5, 2.0]])), atol=1e-4)"
