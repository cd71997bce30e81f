"""Passing a Python function as an ordinary argument to a jitted apply-twice helper."""

URL = "https://github.com/jax-ml/jax/issues/4416"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    '''@jax.jit
def apply_twice(fn, x):
    return fn(fn(x))''',
    "y = apply_twice(jnp.sin, 1.0)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nfrom functools import partial",
    '''@partial(jax.jit, static_argnums=0)
def apply_twice(fn, x):
    return fn(fn(x))''',
    "y = apply_twice(jnp.sin, 1.0)",
)
CHECK = "abs(float(y) - 0.74562414) < 1e-6"
