"""Rescaling each example's (height, width, channel) activation block of a small batch to unit L2 norm, computing the per-example norm with jnp.linalg.norm over the three trailing axes."""

URL = "https://github.com/jax-ml/jax/issues/26112"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''# batch of 3 feature maps, each 4 x 4 pixels with 2 channels
acts = jnp.asarray(np.linspace(-1.5, 2.5, 3 * 4 * 4 * 2).reshape(3, 4, 4, 2) ** 2 - 0.7, dtype=jnp.float32)

def unit_scale(a):
    norms = jnp.linalg.norm(a, axis=(1, 2, 3))
    return a / norms[:, None, None, None], norms''',
    "scaled, norms = unit_scale(acts)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''# batch of 3 feature maps, each 4 x 4 pixels with 2 channels
acts = jnp.asarray(np.linspace(-1.5, 2.5, 3 * 4 * 4 * 2).reshape(3, 4, 4, 2) ** 2 - 0.7, dtype=jnp.float32)

def unit_scale(a):
    # a 2-norm over more than two axes is a vector norm, not a matrix norm
    norms = jnp.linalg.vector_norm(a, axis=(1, 2, 3))
    return a / norms[:, None, None, None], norms''',
    "scaled, norms = unit_scale(acts)",
)
CHECK = ("(lambda A: np.allclose(np.asarray(norms), np.sqrt((A ** 2).sum(axis=(1, 2, 3))), rtol=1e-5) and "
         "np.allclose(np.asarray(scaled), A / np.sqrt((A ** 2).sum(axis=(1, 2, 3)))[:, None, None, None], atol=1e-6))"
         "(np.linspace(-1.5, 2.5, 96).reshape(3, 4, 4, 2) ** 2 - 0.7)")
