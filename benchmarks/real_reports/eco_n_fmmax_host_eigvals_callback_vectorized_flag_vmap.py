"""Computing the spectral radius of a batch of small non-symmetric transfer matrices on the host with np.linalg.eigvals through jax.pure_callback (flagged vectorized=True, as in older fmmax code) and mapping it over the batch with vmap."""

URL = "https://github.com/facebookresearch/fmmax/issues/139"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def _host_spectral_radius(m):
    # NumPy handles any leading batch dimensions of m
    return np.max(np.abs(np.linalg.eigvals(m)), axis=-1).astype(np.float32)

def spectral_radius(m):
    out = jax.ShapeDtypeStruct(m.shape[:-2], jnp.float32)
    return jax.pure_callback(_host_spectral_radius, out, m, vectorized=True)

mats = jnp.array([[[0.0, 2.0], [0.5, 0.0]],
                  [[1.0, 3.0], [0.0, -2.0]],
                  [[0.0, -1.0], [1.0, 0.0]]])''',
    "radii = jax.vmap(spectral_radius)(mats)",
)
FIXED = (
    CELLS[0],
    '''def _host_spectral_radius(m):
    # NumPy handles any leading batch dimensions of m
    return np.max(np.abs(np.linalg.eigvals(m)), axis=-1).astype(np.float32)

def spectral_radius(m):
    out = jax.ShapeDtypeStruct(m.shape[:-2], jnp.float32)
    return jax.pure_callback(_host_spectral_radius, out, m, vmap_method="expand_dims")

mats = jnp.array([[[0.0, 2.0], [0.5, 0.0]],
                  [[1.0, 3.0], [0.0, -2.0]],
                  [[0.0, -1.0], [1.0, 0.0]]])''',
    "radii = jax.vmap(spectral_radius)(mats)",
)
CHECK = "radii.shape == (3,) and np.allclose(np.asarray(radii), [1.0, 2.0, 1.0], atol=1e-5)"
