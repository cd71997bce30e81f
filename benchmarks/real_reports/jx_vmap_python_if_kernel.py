"""vmapping a truncated Gaussian kernel written with a Python if on the value of its input."""

URL = "https://github.com/jax-ml/jax/issues/1076"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def kernel_scalar(x, lam=0.18, beta=1.0):
    if jnp.abs(x) > lam:
        return 0.0
    else:
        return jnp.exp(-beta * x ** 2)''',
    "k = jax.vmap(kernel_scalar)(jnp.array([0.1, -0.05, 0.5]))",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def kernel_scalar(x, lam=0.18, beta=1.0):
    return jnp.where(jnp.abs(x) > lam, 0.0, jnp.exp(-beta * x ** 2))''',
    "k = jax.vmap(kernel_scalar)(jnp.array([0.1, -0.05, 0.5]))",
)
CHECK = "np.allclose(np.asarray(k), [0.99004983, 0.99750312, 0.0], atol=1e-6)"
