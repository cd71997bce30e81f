"""Simulating repeated detection counts at several survey sites with jax.random.binomial, asking for the counts directly as 32-bit integers."""

URL = "https://github.com/jax-ml/jax/issues/28457"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''n_visits = jnp.array([6.0, 8.0, 5.0, 9.0])
p_detect = jnp.array([0.0, 0.35, 1.0, 0.7])
key = jax.random.key(3)

def simulate_counts(key, n, p, n_rep):
    return jax.random.binomial(key, n, p, shape=(n_rep, n.shape[0]), dtype=jnp.int32)''',
    "counts = simulate_counts(key, n_visits, p_detect, 200)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''n_visits = jnp.array([6.0, 8.0, 5.0, 9.0])
p_detect = jnp.array([0.0, 0.35, 1.0, 0.7])
key = jax.random.key(3)

def simulate_counts(key, n, p, n_rep):
    return jax.random.binomial(key, n, p, shape=(n_rep, n.shape[0])).astype(jnp.int32)''',
    "counts = simulate_counts(key, n_visits, p_detect, 200)",
)
CHECK = "counts.dtype == np.int32 and counts.shape == (200, 4) and bool(np.all(np.asarray(counts)[:, 0] == 0)) and bool(np.all(np.asarray(counts)[:, 2] == 5)) and bool(np.all((np.asarray(counts) >= 0) & (np.asarray(counts) <= np.array([6, 8, 5, 9])))) and abs(float(np.asarray(counts)[:, 1].mean()) - 8 * 0.35) < 0.6 and abs(float(np.asarray(counts)[:, 3].mean()) - 9 * 0.7) < 0.6"
