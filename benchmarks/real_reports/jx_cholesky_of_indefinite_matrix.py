"""Taking jnp.linalg.cholesky of a matrix that is not positive definite and asserting the factor is finite."""

URL = "https://github.com/jax-ml/jax/issues/775"
KIND = "silent"
CELLS = (
    "import jax, jax.numpy as jnp",
    "x = jnp.arange(9.0).reshape(3, 3)",
    '''L = jnp.linalg.cholesky(x)
assert bool(jnp.all(jnp.isfinite(L))), "cholesky returned NaNs"''',
)
FIXED = (
    "import jax, jax.numpy as jnp",
    '''x = jnp.arange(9.0).reshape(3, 3)
A = x @ x.T + 3.0 * jnp.eye(3)   # symmetric positive definite''',
    '''L = jnp.linalg.cholesky(A)
assert bool(jnp.all(jnp.isfinite(L))), "cholesky returned NaNs"''',
)
CHECK = "abs(float(L[0, 0]) - 8.0 ** 0.5) < 1e-5 and bool(jnp.allclose(L @ L.T, A, atol=1e-3))"
