"""Shifting index grids in place after turning jnp.indices output into NumPy arrays, which NumPy refuses as read-only."""

URL = "https://github.com/jax-ml/jax/issues/7437"
KIND = "silent"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    "rows, cols = jnp.indices((3, 3))",
    "rows_np = np.asarray(rows)\nrows_np += 5",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    "rows, cols = jnp.indices((3, 3))",
    "rows_np = np.array(rows)\nrows_np += 5",
)
CHECK = "rows_np.tolist() == [[5, 5, 5], [6, 6, 6], [7, 7, 7]]"
