"""Rejuvenating a set of SMC particles with a vmap over keys obtained from a default two-way split."""

URL = "https://github.com/genjax-community/genjax/issues/621"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    """n_particles = 5
particles = jnp.linspace(-1.0, 1.0, n_particles)

def move(key, x):
    return x + 0.1 * jax.random.normal(key)

def rejuvenate(key, particles):
    sub_keys = jax.random.split(key)
    return jax.vmap(move)(sub_keys, particles)""",
    "new_particles = rejuvenate(jax.random.PRNGKey(1), particles)",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """n_particles = 5
particles = jnp.linspace(-1.0, 1.0, n_particles)

def move(key, x):
    return x + 0.1 * jax.random.normal(key)

def rejuvenate(key, particles):
    sub_keys = jax.random.split(key, particles.shape[0])
    return jax.vmap(move)(sub_keys, particles)""",
    "new_particles = rejuvenate(jax.random.PRNGKey(1), particles)",
)
CHECK = ("new_particles.shape == (5,) and bool((jnp.abs(new_particles - particles) < 1.0).all()) "
         "and len(set((new_particles - particles).tolist())) == 5")
