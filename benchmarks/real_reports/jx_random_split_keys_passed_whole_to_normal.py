"""Drawing one Gaussian jitter value per particle by handing the whole array of split keys to jax.random.normal."""

URL = "https://github.com/jax-ml/jax/issues/19376"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''n_particles = 6
root = jax.random.PRNGKey(42)
particle_keys = jax.random.split(root, n_particles)
positions = jnp.linspace(0.0, 1.0, n_particles)''',
    '''jitter = jax.random.normal(particle_keys, shape=(n_particles,))
moved = positions + 0.01 * jitter''',
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''n_particles = 6
root = jax.random.PRNGKey(42)
particle_keys = jax.random.split(root, n_particles)
positions = jnp.linspace(0.0, 1.0, n_particles)''',
    '''jitter = jax.vmap(lambda k: jax.random.normal(k, shape=()))(particle_keys)
moved = positions + 0.01 * jitter''',
)
CHECK = ("jitter.shape == (6,) and moved.shape == (6,) and len(np.unique(np.asarray(jitter))) == 6"
         " and np.all(np.abs(np.asarray(jitter)) < 6)"
         " and np.allclose(np.asarray(moved) - np.linspace(0.0, 1.0, 6), 0.01 * np.asarray(jitter), atol=1e-6)")
