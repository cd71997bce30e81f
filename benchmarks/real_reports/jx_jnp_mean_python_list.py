"""Calling jnp.mean directly on a plain Python list of scores."""

URL = "https://github.com/jax-ml/jax/issues/1029"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    "scores = [1, 2, 3, 4]",
    "m = jnp.mean(scores)",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    "scores = [1, 2, 3, 4]",
    "m = jnp.mean(jnp.array(scores))",
)
CHECK = "abs(float(m) - 2.5) < 1e-6"
