"""vmapping a two-argument sum over rows, with in_axes pointing at the wrong axis of the second array."""

URL = "https://github.com/jax-ml/jax/issues/705"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    '''X = jnp.arange(40.0).reshape(10, 4)
U = jnp.ones((10, 2))

def h(a, b):
    return jnp.sum(a) + jnp.sum(b)''',
    "out = jax.vmap(h, in_axes=(0, 1))(X, U)",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    '''X = jnp.arange(40.0).reshape(10, 4)
U = jnp.ones((10, 2))

def h(a, b):
    return jnp.sum(a) + jnp.sum(b)''',
    "out = jax.vmap(h, in_axes=(0, 0))(X, U)",
)
CHECK = "out.shape == (10,) and float(out[0]) == 8.0 and float(out[9]) == 152.0"
