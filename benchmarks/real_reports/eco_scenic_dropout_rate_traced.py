"""Initialising a model under jit where the dropout rate is passed as a traced argument and tested with `if`."""

URL = "https://github.com/google-research/scenic/issues/709"
KIND = "fix"
CELLS = (
    "import functools\nimport jax, jax.numpy as jnp",
    """def dropout(x, rate, key, deterministic):
    if rate == 0.0 or deterministic:
        return x
    keep = jax.random.bernoulli(key, 1.0 - rate, x.shape)
    return jnp.where(keep, x / (1.0 - rate), 0.0)

@jax.jit
def initialize_model(x, rate, key):
    h = dropout(x, rate, key, deterministic=False)
    return jnp.tanh(h).sum()""",
    "out = initialize_model(jnp.ones(4), 0.0, jax.random.PRNGKey(0))",
)
FIXED = (
    "import functools\nimport jax, jax.numpy as jnp",
    """def dropout(x, rate, key, deterministic):
    if rate == 0.0 or deterministic:
        return x
    keep = jax.random.bernoulli(key, 1.0 - rate, x.shape)
    return jnp.where(keep, x / (1.0 - rate), 0.0)

@functools.partial(jax.jit, static_argnames="rate")
def initialize_model(x, rate, key):
    h = dropout(x, rate, key, deterministic=False)
    return jnp.tanh(h).sum()""",
    "out = initialize_model(jnp.ones(4), rate=0.0, key=jax.random.PRNGKey(0))",
)
CHECK = "abs(float(out) - 3.0463766) < 1e-5"
