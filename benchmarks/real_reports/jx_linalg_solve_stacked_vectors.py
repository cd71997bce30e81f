"""Solving one 2x2 system against a stack of right-hand-side vectors shaped (batch, n) with jnp.linalg.solve."""

URL = "https://github.com/jax-ml/jax/issues/826"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''A = jnp.array([[[2.0, 0.0], [0.0, 4.0]]])   # one system, meant to broadcast over the batch
b = jnp.ones((3, 2))                          # three right-hand-side vectors''',
    "x = jnp.linalg.solve(A, b)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''A = jnp.array([[[2.0, 0.0], [0.0, 4.0]]])
b = jnp.ones((3, 2))''',
    "x = jnp.linalg.solve(A, b[..., None]).squeeze(-1)",
)
CHECK = "x.shape == (3, 2) and np.allclose(np.asarray(x), [[0.5, 0.25]] * 3)"
