"""Building polynomial regression features inside a jitted function, passing the list of exponents to use as a static argument."""

URL = "https://github.com/genjax-community/genjax/issues/1179"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def poly_features(x, exponents):
    return jnp.stack([x ** k for k in exponents], axis=-1)

poly_features_jit = jax.jit(poly_features, static_argnums=1)
x = jnp.array([0.5, 1.5, 2.0, 3.0])
powers = [0, 1, 3]''',
    "design = poly_features_jit(x, powers)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def poly_features(x, exponents):
    return jnp.stack([x ** k for k in exponents], axis=-1)

poly_features_jit = jax.jit(poly_features, static_argnums=1)
x = jnp.array([0.5, 1.5, 2.0, 3.0])
powers = (0, 1, 3)''',
    "design = poly_features_jit(x, powers)",
)
CHECK = ("design.shape == (4, 3) and np.allclose(np.asarray(design), "
         "np.array([0.5, 1.5, 2.0, 3.0])[:, None] ** np.array([0, 1, 3])[None, :], rtol=1e-6)")
