"""Zeroing the small entries of an array with x.at[x < 5].set(0) inside a jitted function."""

URL = "https://github.com/jax-ml/jax/issues/21994"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    '''@jax.jit
def zero_small(x):
    return x.at[x < 5].set(0)''',
    "y = zero_small(jnp.arange(10))",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    '''@jax.jit
def zero_small(x):
    return jnp.where(x < 5, 0, x)''',
    "y = zero_small(jnp.arange(10))",
)
CHECK = "y.tolist() == [0, 0, 0, 0, 0, 5, 6, 7, 8, 9]"
