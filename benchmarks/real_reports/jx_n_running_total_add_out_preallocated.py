"""Accumulating per-batch feature sums into a preallocated running total NumPy-style, with jnp.add(..., out=total), over a few data batches."""

URL = "https://github.com/jax-ml/jax/issues/1328"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''batches = [jnp.array([[1.0, 2.0, 0.5], [3.0, 0.0, 1.5]]),
           jnp.array([[0.5, 1.0, 1.0]]),
           jnp.array([[2.0, 2.0, 2.0], [1.0, -1.0, 0.0], [0.0, 4.0, 3.5]])]
total = jnp.zeros(3)
count = 0''',
    '''for b in batches:
    jnp.add(total, b.sum(axis=0), out=total)
    count += b.shape[0]
feature_mean = total / count''',
)
FIXED = (
    CELLS[0],
    CELLS[1],
    '''for b in batches:
    total = jnp.add(total, b.sum(axis=0))
    count += b.shape[0]
feature_mean = total / count''',
)
CHECK = ("np.allclose(np.asarray(total), [7.5, 8.0, 8.5]) and count == 6 "
         "and np.allclose(np.asarray(feature_mean), np.array([7.5, 8.0, 8.5]) / 6)")
