"""Reverse-mode grad through a fori_loop whose trip count is an argument of the jitted gradient function."""

URL = "https://github.com/jax-ml/jax/issues/2956"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    '''def power(x, n):
    return jax.lax.fori_loop(0, n, lambda i, acc: acc * x, 1.0)

dpower = jax.jit(jax.grad(power))''',
    "d = dpower(2.0, 3)",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    '''def power(x, n):
    return jax.lax.fori_loop(0, n, lambda i, acc: acc * x, 1.0)

dpower = jax.jit(jax.grad(power), static_argnums=1)''',
    "d = dpower(2.0, 3)",
)
CHECK = "abs(float(d) - 12.0) < 1e-5"
