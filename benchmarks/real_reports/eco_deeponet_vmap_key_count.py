"""Generating per-function training samples for a DeepONet with vmap over random keys and input functions of different counts."""

URL = "https://github.com/PredictiveIntelligenceLab/Physics-informed-DeepONets/issues/3"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    """N = 10      # number of input functions
m = 8       # sensor points per function
P = 4       # sampled points per function
u0_train = jnp.repeat(jnp.arange(N, dtype=jnp.float32)[:, None], m, axis=1)

def sample_function_data(key, u, m, P):
    idx = jax.random.randint(key, (P,), 0, m)
    y = idx / (m - 1)
    s = u[idx]
    return y, s""",
    """keys = jax.random.split(jax.random.PRNGKey(0), 1000)
y_train, s_train = jax.vmap(sample_function_data, in_axes=(0, 0, None, None))(keys, u0_train, m, P)""",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """N = 10      # number of input functions
m = 8       # sensor points per function
P = 4       # sampled points per function
u0_train = jnp.repeat(jnp.arange(N, dtype=jnp.float32)[:, None], m, axis=1)

def sample_function_data(key, u, m, P):
    idx = jax.random.randint(key, (P,), 0, m)
    y = idx / (m - 1)
    s = u[idx]
    return y, s""",
    """keys = jax.random.split(jax.random.PRNGKey(0), N)
y_train, s_train = jax.vmap(sample_function_data, in_axes=(0, 0, None, None))(keys, u0_train, m, P)""",
)
CHECK = ("s_train.shape == (10, 4) and y_train.shape == (10, 4) "
         "and bool((s_train == jnp.arange(10.0)[:, None]).all()) "
         "and bool(((y_train >= 0) & (y_train <= 1)).all())")
