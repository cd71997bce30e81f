"""Jitting a truncated Taylor-series exponential whose term-count parameter was renamed while the static_argnames list in the decorator kept the old name."""

URL = "https://github.com/jax-ml/jax/issues/10046"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom functools import partial",
    "xs = jnp.linspace(-1.0, 1.0, 5)",
    '''@partial(jax.jit, static_argnames=('degree',))
def taylor_exp(x, n_terms):
    total = jnp.zeros_like(x)
    term = jnp.ones_like(x)
    for k in range(n_terms):
        total = total + term
        term = term * x / (k + 1)
    return total

approx = taylor_exp(xs, n_terms=6)''',
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom functools import partial",
    "xs = jnp.linspace(-1.0, 1.0, 5)",
    '''@partial(jax.jit, static_argnames=('n_terms',))
def taylor_exp(x, n_terms):
    total = jnp.zeros_like(x)
    term = jnp.ones_like(x)
    for k in range(n_terms):
        total = total + term
        term = term * x / (k + 1)
    return total

approx = taylor_exp(xs, n_terms=6)''',
)
CHECK = ("np.allclose(np.asarray(approx), sum(np.linspace(-1.0, 1.0, 5) ** k / np.prod(np.arange(1.0, k + 1))"
         " for k in range(6)), atol=1e-5)")
