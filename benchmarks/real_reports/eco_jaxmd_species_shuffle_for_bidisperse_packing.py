"""Assigning random species labels to the particles of a 50/50 bidisperse soft-sphere packing, cookbook-style, and computing each particle's diameter and the total disk area."""

URL = "https://github.com/jax-md/jax-md/issues/364"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''N = 40
diameters_by_species = jnp.array([1.0, 1.4])
labels = jnp.concatenate([jnp.zeros(N // 2, dtype=jnp.int32), jnp.ones(N // 2, dtype=jnp.int32)])
key = jax.random.PRNGKey(11)''',
    '''species = jax.random.shuffle(key, labels)
diameters = diameters_by_species[species]
total_area = jnp.sum(jnp.pi * (diameters / 2) ** 2)''',
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''N = 40
diameters_by_species = jnp.array([1.0, 1.4])
labels = jnp.concatenate([jnp.zeros(N // 2, dtype=jnp.int32), jnp.ones(N // 2, dtype=jnp.int32)])
key = jax.random.PRNGKey(11)''',
    '''species = jax.random.permutation(key, labels)
diameters = diameters_by_species[species]
total_area = jnp.sum(jnp.pi * (diameters / 2) ** 2)''',
)
CHECK = ("species.shape == (40,) and int(np.sum(np.asarray(species) == 1)) == 20 and "
         "not np.array_equal(np.asarray(species), np.repeat([0, 1], 20)) and "
         "np.allclose(np.asarray(diameters), np.where(np.asarray(species) == 1, 1.4, 1.0)) and "
         "np.isclose(float(total_area), 20 * np.pi * 0.25 + 20 * np.pi * 0.49, rtol=1e-5)")
