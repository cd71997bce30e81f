"""Sampling five items without replacement from a distribution with a single nonzero probability and asserting every pick is possible."""

URL = "https://github.com/jax-ml/jax/issues/9548"
KIND = "silent"
CELLS = (
    "import jax, jax.numpy as jnp",
    '''prob = jnp.zeros(10).at[9].set(1.0)
key = jax.random.PRNGKey(5)''',
    '''picks = jax.random.choice(key, jnp.arange(10), shape=(5,), replace=False, p=prob)
assert bool((prob[picks] > 0).all()), picks''',
)
FIXED = (
    "import jax, jax.numpy as jnp",
    '''prob = jnp.zeros(10).at[9].set(1.0)
key = jax.random.PRNGKey(5)''',
    '''n_possible = int((prob > 0).sum())
picks = jax.random.choice(key, jnp.arange(10), shape=(n_possible,), replace=False, p=prob)
assert bool((prob[picks] > 0).all()), picks''',
)
CHECK = "picks.tolist() == [9]"
