"""Hunting NaNs with debug_nans while differentiating a correlation-Cholesky transform that takes sqrt of zero on its first row."""

URL = "https://github.com/jax-ml/jax/issues/6752"
KIND = "diagnose"
CELLS = (
    "import jax, jax.numpy as jnp",
    '''def chol_corr(y):
    z = jnp.tanh(y)
    x = jnp.eye(2).at[1, 0].set(z)
    # rescale the second column so that every row has unit norm
    scale = jnp.sqrt(1.0 - jnp.sum(x[:, :1] ** 2, axis=1))
    return x.at[:, 1].set(x[:, 1] * scale)

def loglik(y):
    L = chol_corr(y)
    v = jnp.array([0.3, -0.2])
    s0 = v[0] / L[0, 0]
    s1 = (v[1] - L[1, 0] * s0) / L[1, 1]
    return -0.5 * (s0 ** 2 + s1 ** 2) - jnp.sum(jnp.log(jnp.diag(L)))''',
    "with jax.debug_nans(True):\n    g = jax.grad(loglik)(0.5)",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    '''def chol_corr(y):
    z = jnp.tanh(y)
    x = jnp.eye(2).at[1, 0].set(z)
    # the first row already has unit norm; only rescale the rows below it
    scale = jnp.concatenate([jnp.ones(1), jnp.sqrt(1.0 - x[1:, 0] ** 2)])
    return x.at[:, 1].set(x[:, 1] * scale)

def loglik(y):
    L = chol_corr(y)
    v = jnp.array([0.3, -0.2])
    s0 = v[0] / L[0, 0]
    s1 = (v[1] - L[1, 0] * s0) / L[1, 1]
    return -0.5 * (s0 ** 2 + s1 ** 2) - jnp.sum(jnp.log(jnp.diag(L)))''',
    "with jax.debug_nans(True):\n    g = jax.grad(loglik)(0.5)",
)
CHECK = "abs(float(g) - 0.2931442) < 1e-5"
