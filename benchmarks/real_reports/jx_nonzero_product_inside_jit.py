"""Multiplying the nonzero entries of an array selected with jnp.nonzero inside a jitted function."""

URL = "https://github.com/jax-ml/jax/issues/5280"
KIND = "diagnose"
CELLS = (
    "import jax, jax.numpy as jnp",
    '''@jax.jit
def prod_nonzero(a):
    return a[jnp.nonzero(a)].prod()''',
    "p = prod_nonzero(jnp.array([0, 3, 2, 0, 5]))",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    '''@jax.jit
def prod_nonzero(a):
    return jnp.where(a != 0, a, 1).prod()''',
    "p = prod_nonzero(jnp.array([0, 3, 2, 0, 5]))",
)
CHECK = "int(p) == 30"
