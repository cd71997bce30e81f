"""Tabulating the slope of a tanh activation at the whole-number points of a small grid by vmapping jax.grad over a grid built with jnp.arange."""

URL = "https://github.com/jax-ml/jax/issues/2663"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''slope = jax.vmap(jax.grad(jnp.tanh))
grid = jnp.arange(-2, 3)''',
    "slopes = slope(grid)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''slope = jax.vmap(jax.grad(jnp.tanh))
grid = jnp.arange(-2.0, 3.0)''',
    "slopes = slope(grid)",
)
CHECK = "slopes.shape == (5,) and np.allclose(np.asarray(slopes), 1.0 - np.tanh(np.arange(-2.0, 3.0)) ** 2, atol=1e-6)"
