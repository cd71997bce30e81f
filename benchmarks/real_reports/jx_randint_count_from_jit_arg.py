"""Drawing a number of random integers that is passed as an argument to a jitted sampler."""

URL = "https://github.com/jax-ml/jax/issues/648"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    '''@jax.jit
def sample(key, n):
    return jax.random.randint(key, (n,), 0, 10)''',
    "draws = sample(jax.random.PRNGKey(0), 4)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nfrom functools import partial",
    '''@partial(jax.jit, static_argnums=1)
def sample(key, n):
    return jax.random.randint(key, (n,), 0, 10)''',
    "draws = sample(jax.random.PRNGKey(0), 4)",
)
CHECK = ("draws.shape == (4,) and bool(((draws >= 0) & (draws < 10)).all()) and "
         "draws.tolist() == jax.random.randint(jax.random.PRNGKey(0), (4,), 0, 10).tolist()")
