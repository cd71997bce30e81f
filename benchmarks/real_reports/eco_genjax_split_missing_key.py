"""Importance sampling with a small sampler class whose key split forgot to pass the key."""

URL = "https://github.com/genjax-community/genjax/issues/670"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    """class ImportanceSampler:
    def __init__(self, n_particles, obs):
        self.n_particles = n_particles
        self.obs = obs

    def log_weight(self, key):
        z = jax.random.normal(key)                      # proposal = prior N(0, 1)
        return -0.5 * (self.obs - z) ** 2 - 0.5 * jnp.log(2 * jnp.pi)

    def run(self, key):
        sub_keys = jax.random.split(self.n_particles)
        log_w = jax.vmap(self.log_weight)(sub_keys)
        return log_w, jax.nn.logsumexp(log_w) - jnp.log(self.n_particles)

sampler = ImportanceSampler(n_particles=1000, obs=0.0)""",
    "log_w, log_evidence = sampler.run(jax.random.PRNGKey(0))",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """class ImportanceSampler:
    def __init__(self, n_particles, obs):
        self.n_particles = n_particles
        self.obs = obs

    def log_weight(self, key):
        z = jax.random.normal(key)                      # proposal = prior N(0, 1)
        return -0.5 * (self.obs - z) ** 2 - 0.5 * jnp.log(2 * jnp.pi)

    def run(self, key):
        sub_keys = jax.random.split(key, self.n_particles)
        log_w = jax.vmap(self.log_weight)(sub_keys)
        return log_w, jax.nn.logsumexp(log_w) - jnp.log(self.n_particles)

sampler = ImportanceSampler(n_particles=1000, obs=0.0)""",
    "log_w, log_evidence = sampler.run(jax.random.PRNGKey(0))",
)
# the marginal likelihood of obs=0 under z ~ N(0,1), obs ~ N(z,1) is N(0; 0, 2): log = -0.5*log(4*pi) = -1.2655
CHECK = "log_w.shape == (1000,) and abs(float(log_evidence) + 1.2655) < 0.05"
