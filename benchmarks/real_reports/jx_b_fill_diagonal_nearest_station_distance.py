"""Finding each point's nearest-neighbour distance from a pairwise distance matrix, blanking the self-distances on the diagonal NumPy-style with fill_diagonal before taking the row minimum."""

URL = "https://github.com/jax-ml/jax/issues/2680"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''stations = jnp.array([[0.0, 0.0],
                      [3.0, 4.0],
                      [1.0, 0.0],
                      [0.0, 2.5]])
delta = stations[:, None, :] - stations[None, :, :]
dist = jnp.sqrt((delta ** 2).sum(axis=-1))''',
    '''jnp.fill_diagonal(dist, jnp.inf)
nearest = dist.min(axis=1)''',
)
FIXED = (
    CELLS[0],
    CELLS[1],
    '''dist = jnp.fill_diagonal(dist, jnp.inf, inplace=False)
nearest = dist.min(axis=1)''',
)
CHECK = ("(lambda p: (lambda d: np.allclose(np.asarray(nearest), "
         "np.where(np.eye(4, dtype=bool), np.inf, d).min(axis=1), atol=1e-5))"
         "(np.sqrt(((p[:, None, :] - p[None, :, :]) ** 2).sum(-1))))"
         "(np.array([[0.0, 0.0], [3.0, 4.0], [1.0, 0.0], [0.0, 2.5]]))")
