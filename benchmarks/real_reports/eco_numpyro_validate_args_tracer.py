"""A jitted Metropolis step whose log-density validates its sample with a Python `if` on a traced value."""

URL = "https://github.com/pyro-ppl/numpyro/issues/771"
KIND = "diagnose"
CELLS = (
    "import jax, jax.numpy as jnp",
    """def exponential_log_prob(rate, x, validate_args=True):
    if validate_args and not jnp.all(x >= 0):
        raise ValueError("sample outside the support of Exponential")
    return jnp.sum(jnp.log(rate) - rate * x)

@jax.jit
def mh_step(x, key, rate=0.5):
    k1, k2 = jax.random.split(key)
    proposal = x + jax.random.normal(k1, x.shape)
    log_ratio = exponential_log_prob(rate, proposal) - exponential_log_prob(rate, x)
    accept = jnp.log(jax.random.uniform(k2)) < log_ratio
    return jnp.where(accept, proposal, x)""",
    "x = mh_step(jnp.array([1.0, 2.0]), jax.random.PRNGKey(0))",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """def exponential_log_prob(rate, x):
    lp = jnp.sum(jnp.log(rate) - rate * x)
    return jnp.where(jnp.all(x >= 0), lp, -jnp.inf)

@jax.jit
def mh_step(x, key, rate=0.5):
    k1, k2 = jax.random.split(key)
    proposal = x + jax.random.normal(k1, x.shape)
    log_ratio = exponential_log_prob(rate, proposal) - exponential_log_prob(rate, x)
    accept = jnp.log(jax.random.uniform(k2)) < log_ratio
    return jnp.where(accept, proposal, x)""",
    """x = mh_step(jnp.array([1.0, 2.0]), jax.random.PRNGKey(0))
lp_inside = exponential_log_prob(0.5, jnp.array([1.0, 2.0]))
lp_outside = exponential_log_prob(0.5, jnp.array([1.0, -2.0]))""",
)
# 2 log(0.5) - 0.5 * 3 = -2.8862944
CHECK = ("abs(float(lp_inside) + 2.8862944) < 1e-5 and float(lp_outside) == float('-inf') "
         "and x.shape == (2,) and bool((x >= 0).all())")
