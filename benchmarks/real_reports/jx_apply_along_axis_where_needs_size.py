"""Listing the column positions of the occupied slots in every row of a 0/1 grid with jnp.apply_along_axis and one-argument jnp.where, as in NumPy."""

URL = "https://github.com/jax-ml/jax/issues/7542"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''occupancy = jnp.array([[1, 0, 1, 0, 1],
                       [0, 1, 1, 1, 0],
                       [1, 1, 0, 0, 1],
                       [0, 0, 1, 1, 1]])
# every row has exactly three occupied slots''',
    "slots = jnp.apply_along_axis(jnp.where, 1, occupancy).squeeze()",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''occupancy = jnp.array([[1, 0, 1, 0, 1],
                       [0, 1, 1, 1, 0],
                       [1, 1, 0, 0, 1],
                       [0, 0, 1, 1, 1]])
# every row has exactly three occupied slots''',
    "slots = jnp.apply_along_axis(lambda row: jnp.where(row, size=3)[0], 1, occupancy)",
)
CHECK = ("slots.shape == (4, 3) and np.array_equal(np.asarray(slots), "
         "np.array([[0, 2, 4], [1, 2, 3], [0, 1, 4], [2, 3, 4]]))")
