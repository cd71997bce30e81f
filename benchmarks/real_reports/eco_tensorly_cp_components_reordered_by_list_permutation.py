"""Reordering the components of a CP (PARAFAC) decomposition held as JAX arrays, weights and factor columns, so the heaviest component comes first, using a permutation built as a Python list."""

URL = "https://github.com/tensorly/tensorly/issues/402"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''weights = jnp.array([0.5, 2.0, 1.25, 3.0])
factors = [jnp.arange(12.0).reshape(3, 4), jnp.arange(8.0).reshape(2, 4) - 3.0]

# components sorted by decreasing weight
order = sorted(range(len(weights)), key=lambda r: -float(weights[r]))

def permute_components(weights, factors, perm):
    new_weights = weights[perm]
    new_factors = [f[:, perm] for f in factors]
    return new_weights, new_factors''',
    "new_weights, new_factors = permute_components(weights, factors, order)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''weights = jnp.array([0.5, 2.0, 1.25, 3.0])
factors = [jnp.arange(12.0).reshape(3, 4), jnp.arange(8.0).reshape(2, 4) - 3.0]

# components sorted by decreasing weight
order = sorted(range(len(weights)), key=lambda r: -float(weights[r]))

def permute_components(weights, factors, perm):
    perm = jnp.asarray(perm)
    new_weights = weights[perm]
    new_factors = [f[:, perm] for f in factors]
    return new_weights, new_factors''',
    "new_weights, new_factors = permute_components(weights, factors, order)",
)
CHECK = ("np.allclose(np.asarray(new_weights), [3.0, 2.0, 1.25, 0.5]) and "
         "np.allclose(np.asarray(new_factors[0]), np.arange(12.0).reshape(3, 4)[:, [3, 1, 2, 0]]) and "
         "np.allclose(np.asarray(new_factors[1]), (np.arange(8.0).reshape(2, 4) - 3.0)[:, [3, 1, 2, 0]])")
