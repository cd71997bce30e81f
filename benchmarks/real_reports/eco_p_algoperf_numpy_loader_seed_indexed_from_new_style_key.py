"""Deriving an integer seed for a NumPy data shuffler from the run's JAX random key by reading the key's second word, after switching key creation from jax.random.PRNGKey to jax.random.key."""

URL = "https://github.com/mlcommons/algorithmic-efficiency/issues/815"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def host_seed(rng):
    # the NumPy-side loader wants a plain integer seed
    return int(rng[1])

run_rng = jax.random.key(2024)''',
    '''seed = host_seed(run_rng)
order = np.random.default_rng(seed).permutation(12)''',
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def host_seed(rng):
    # the NumPy-side loader wants a plain integer seed
    return int(jax.random.key_data(rng)[1])

run_rng = jax.random.key(2024)''',
    '''seed = host_seed(run_rng)
order = np.random.default_rng(seed).permutation(12)''',
)
CHECK = "seed == 2024 and np.array_equal(order, np.random.default_rng(2024).permutation(12))"
