"""Computing a mean-squared error in JAX against a batch of targets sliced out of a NumPy object array built from a list of (features, target) tuples."""

URL = "https://github.com/jax-ml/jax/issues/856"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''samples = [
    (np.array([1.0, 2.0]), 1.5),
    (np.array([0.0, 1.0]), 0.5),
    (np.array([2.0, -1.0]), 2.0),
]
batch = np.array(samples, dtype=object)
features = np.stack(batch[:, 0])
targets = batch[:, 1]

w = jnp.array([0.5, 0.25])
preds = jnp.asarray(features) @ w''',
    "mse = jnp.mean((preds - targets) ** 2)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''samples = [
    (np.array([1.0, 2.0]), 1.5),
    (np.array([0.0, 1.0]), 0.5),
    (np.array([2.0, -1.0]), 2.0),
]
batch = np.array(samples, dtype=object)
features = np.stack(batch[:, 0])
targets = batch[:, 1].astype(np.float32)

w = jnp.array([0.5, 0.25])
preds = jnp.asarray(features) @ w''',
    "mse = jnp.mean((preds - targets) ** 2)",
)
CHECK = "np.isclose(float(mse), np.mean((np.array([[1.0, 2.0], [0.0, 1.0], [2.0, -1.0]]) @ np.array([0.5, 0.25]) - np.array([1.5, 0.5, 2.0])) ** 2), atol=1e-6)"
