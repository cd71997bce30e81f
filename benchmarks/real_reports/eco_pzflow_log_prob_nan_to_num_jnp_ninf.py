"""Evaluating a one-layer log-transform flow's log-density on photometric-style samples, mapping the NaN log-probabilities of out-of-support inputs to negative infinity."""

URL = "https://github.com/jfcrenshaw/pzflow/pull/95"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''mu, sigma = 0.3, 0.8

def latent_log_prob(u):
    return -0.5 * ((u - mu) / sigma) ** 2 - jnp.log(sigma) - 0.5 * jnp.log(2 * jnp.pi)

def forward(x):
    u = jnp.log(x)
    log_det = -jnp.log(x)
    return u, log_det

samples = jnp.array([0.5, 1.0, 2.5, -1.0, 4.0, -0.2])''',
    '''u, log_det = forward(samples)
log_prob = latent_log_prob(u) + log_det
log_prob = jnp.nan_to_num(log_prob, nan=jnp.NINF)''',
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''mu, sigma = 0.3, 0.8

def latent_log_prob(u):
    return -0.5 * ((u - mu) / sigma) ** 2 - jnp.log(sigma) - 0.5 * jnp.log(2 * jnp.pi)

def forward(x):
    u = jnp.log(x)
    log_det = -jnp.log(x)
    return u, log_det

samples = jnp.array([0.5, 1.0, 2.5, -1.0, 4.0, -0.2])''',
    '''u, log_det = forward(samples)
log_prob = latent_log_prob(u) + log_det
log_prob = jnp.nan_to_num(log_prob, nan=-jnp.inf)''',
)
CHECK = ("np.all(np.asarray(log_prob)[[3, 5]] < -1e30) and np.all(np.exp(np.asarray(log_prob, dtype=np.float64)[[3, 5]]) == 0.0) and "
         "np.allclose(np.asarray(log_prob)[[0, 1, 2, 4]], "
         "-0.5 * ((np.log([0.5, 1.0, 2.5, 4.0]) - 0.3) / 0.8) ** 2 - np.log(0.8) - 0.5 * np.log(2 * np.pi) - np.log([0.5, 1.0, 2.5, 4.0]), atol=1e-5)")
