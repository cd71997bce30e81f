"""Adding Gaussian noise augmentation to a batch through a small Keras-style random_normal helper for the JAX backend, which hands the integer seed it is given straight to jax.random.normal."""

URL = "https://github.com/keras-team/keras-core/pull/651"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def random_normal(shape, mean=0.0, stddev=1.0, seed=None):
    return mean + stddev * jax.random.normal(seed, shape)

batch = jnp.linspace(-1.0, 1.0, 200 * 50).reshape(200, 50)''',
    "noisy = batch + random_normal(batch.shape, stddev=0.1, seed=1234)",
)
FIXED = (
    CELLS[0],
    '''def random_normal(shape, mean=0.0, stddev=1.0, seed=None):
    return mean + stddev * jax.random.normal(jax.random.key(seed), shape)

batch = jnp.linspace(-1.0, 1.0, 200 * 50).reshape(200, 50)''',
    CELLS[2],
)
CHECK = ("(lambda e: noisy.shape == (200, 50) and np.all(np.isfinite(e)) "
         "and abs(e.mean()) < 0.01 and 0.095 < e.std() < 0.105)"
         "(np.asarray(noisy, dtype=np.float64) - np.linspace(-1.0, 1.0, 200 * 50).reshape(200, 50))")
