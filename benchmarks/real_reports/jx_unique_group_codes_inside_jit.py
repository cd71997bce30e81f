"""Computing per-group averages inside a jitted function, finding the distinct integer group codes with jnp.unique and comparing every code against them."""

URL = "https://github.com/jax-ml/jax/issues/10231"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''@jax.jit
def group_means(codes, values):
    groups = jnp.unique(codes)
    member = codes[:, None] == groups[None, :]
    totals = jnp.sum(jnp.where(member, values[:, None], 0.0), axis=0)
    return groups, totals / jnp.sum(member, axis=0)

codes = jnp.array([3, 1, 3, 7, 1, 5, 7, 7])
values = jnp.array([2.0, 4.0, 6.0, 1.0, 8.0, 5.0, 3.0, 2.0])''',
    "labels, means = group_means(codes, values)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''@jax.jit
def group_means(codes, values):
    groups = jnp.unique(codes, size=4)
    member = codes[:, None] == groups[None, :]
    totals = jnp.sum(jnp.where(member, values[:, None], 0.0), axis=0)
    return groups, totals / jnp.sum(member, axis=0)

codes = jnp.array([3, 1, 3, 7, 1, 5, 7, 7])
values = jnp.array([2.0, 4.0, 6.0, 1.0, 8.0, 5.0, 3.0, 2.0])''',
    "labels, means = group_means(codes, values)",
)
CHECK = "np.array_equal(np.asarray(labels), np.array([1, 3, 5, 7])) and np.allclose(np.asarray(means), np.array([6.0, 4.0, 5.0, 2.0]), atol=1e-6)"
