"""Wrap-padding a 2-D periodic grid by one cell on every side before a five-point Laplacian stencil, with the pad widths copied from channels-first image code."""

URL = "https://github.com/jax-ml/jax/issues/6605"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    "grid = jnp.arange(20.0).reshape(4, 5) ** 2 / 10.0",
    '''padded = jnp.pad(grid, ((0, 0), (1, 1), (1, 1)), mode="wrap")
lap = (padded[:-2, 1:-1] + padded[2:, 1:-1] + padded[1:-1, :-2] + padded[1:-1, 2:]
       - 4.0 * padded[1:-1, 1:-1])''',
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    "grid = jnp.arange(20.0).reshape(4, 5) ** 2 / 10.0",
    '''padded = jnp.pad(grid, ((1, 1), (1, 1)), mode="wrap")
lap = (padded[:-2, 1:-1] + padded[2:, 1:-1] + padded[1:-1, :-2] + padded[1:-1, 2:]
       - 4.0 * padded[1:-1, 1:-1])''',
)
CHECK = "lap.shape == (4, 5) and np.allclose(np.asarray(lap), (lambda g: np.roll(g, 1, 0) + np.roll(g, -1, 0) + np.roll(g, 1, 1) + np.roll(g, -1, 1) - 4 * g)(np.arange(20.0).reshape(4, 5) ** 2 / 10.0), atol=1e-4)"
