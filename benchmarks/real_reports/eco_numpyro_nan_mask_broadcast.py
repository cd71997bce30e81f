"""Masking missing observations of a multivariate likelihood with an elementwise NaN mask."""

URL = "https://github.com/pyro-ppl/numpyro/issues/1578"
KIND = "diagnose"
CELLS = (
    "import jax, jax.numpy as jnp",
    """nan = jnp.nan
y = jnp.array([[[0.5, nan], [1.0, -1.0], [0.0, 1.0]],
               [[0.0, 0.0], [nan, nan], [2.0, 0.0]]])     # (N=2, T=3, K=2)

def mvn_std_log_prob(y):
    k = y.shape[-1]
    return -0.5 * jnp.sum(y ** 2, axis=-1) - 0.5 * k * jnp.log(2 * jnp.pi)   # (N, T)""",
    """mask = ~jnp.isnan(y)
y_filled = jnp.where(mask, y, 0.0)
log_lik = jnp.sum(jnp.where(mask, mvn_std_log_prob(y_filled), 0.0))""",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """nan = jnp.nan
y = jnp.array([[[0.5, nan], [1.0, -1.0], [0.0, 1.0]],
               [[0.0, 0.0], [nan, nan], [2.0, 0.0]]])     # (N=2, T=3, K=2)

def mvn_std_log_prob(y):
    k = y.shape[-1]
    return -0.5 * jnp.sum(y ** 2, axis=-1) - 0.5 * k * jnp.log(2 * jnp.pi)   # (N, T)""",
    """mask = ~jnp.isnan(y).any(axis=-1)                 # one flag per observed vector
y_filled = jnp.where(jnp.isnan(y), 0.0, y)
log_lik = jnp.sum(jnp.where(mask, mvn_std_log_prob(y_filled), 0.0))""",
)
# complete rows [1,-1], [0,1], [0,0], [2,0]: -(1 + 0.5 + 0 + 2) - 4 log(2 pi) = -10.8515083
CHECK = "abs(float(log_lik) + 10.8515083) < 1e-5"
