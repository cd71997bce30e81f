"""Passing a string mode flag to a jitted function that branches on it."""

URL = "https://github.com/jax-ml/jax/issues/3045"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    '''@jax.jit
def scale(arr, mode):
    if mode == "double":
        return arr * 2
    return arr''',
    'res = scale(jnp.array([5, 3, 2]), "double")',
)
FIXED = (
    "import jax, jax.numpy as jnp\nfrom functools import partial",
    '''@partial(jax.jit, static_argnames="mode")
def scale(arr, mode):
    if mode == "double":
        return arr * 2
    return arr''',
    'res = scale(jnp.array([5, 3, 2]), "double")',
)
CHECK = "res.tolist() == [10, 6, 4]"
