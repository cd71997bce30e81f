"""Filling a jnp.zeros buffer chunk by chunk with NumPy-style slice assignment while loading data."""

URL = "https://github.com/jax-ml/jax/issues/101"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    "x_train = jnp.zeros((4, 3))",
    '''for i in range(2):
    chunk = np.full((2, 3), i + 1.0)
    x_train[i * 2:(i + 1) * 2, :] = chunk''',
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    "x_train = jnp.zeros((4, 3))",
    '''for i in range(2):
    chunk = np.full((2, 3), i + 1.0)
    x_train = x_train.at[i * 2:(i + 1) * 2, :].set(chunk)''',
)
CHECK = "x_train.tolist() == [[1.0] * 3, [1.0] * 3, [2.0] * 3, [2.0] * 3]"
