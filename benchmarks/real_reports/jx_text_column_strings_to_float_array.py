"""Turning numeric fields read from a comma-separated text log (still Python strings) into a float32 array with jnp.array(...).astype, as one would in NumPy."""

URL = "https://github.com/jax-ml/jax/issues/1883"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''log_text = """12.5,3.0
7.25,4.5
9.0,0.75
"""
fields = [line.split(",") for line in log_text.strip().splitlines()]''',
    "readings = jnp.array(fields).astype(jnp.float32)\ncolumn_means = readings.mean(axis=0)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''log_text = """12.5,3.0
7.25,4.5
9.0,0.75
"""
fields = [line.split(",") for line in log_text.strip().splitlines()]''',
    "readings = jnp.asarray(np.array(fields).astype(np.float32))\ncolumn_means = readings.mean(axis=0)",
)
CHECK = "readings.shape == (3, 2) and readings.dtype == jnp.float32 and np.allclose(np.asarray(readings), [[12.5, 3.0], [7.25, 4.5], [9.0, 0.75]]) and np.allclose(np.asarray(column_means), [(12.5 + 7.25 + 9.0) / 3, (3.0 + 4.5 + 0.75) / 3])"
