"""Reshaping a NumPy constant with jnp.reshape inside jit and picking a column with a traced index."""

URL = "https://github.com/jax-ml/jax/issues/3391"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''table = np.arange(10.0)

@jax.jit
def column(j):
    grid = jnp.reshape(table, (2, 5))
    return grid[:, j]''',
    "col = column(3)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''table = np.arange(10.0)

@jax.jit
def column(j):
    grid = jnp.reshape(jnp.asarray(table), (2, 5))
    return grid[:, j]''',
    "col = column(3)",
)
CHECK = "col.tolist() == [3.0, 8.0]"
