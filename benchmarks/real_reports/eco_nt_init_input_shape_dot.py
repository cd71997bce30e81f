"""Initialising a small dense network for an input shape copied from a cookbook, then applying it to 15-feature data."""

URL = "https://github.com/google/neural-tangents/issues/135"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    """def init_dense(in_dim, out_dim):
    return {"w": jnp.full((in_dim, out_dim), 0.1), "b": jnp.zeros(out_dim)}

def init_fn(input_shape, hidden=8):
    return [init_dense(input_shape[-1], hidden), init_dense(hidden, 1)]

def apply_fn(params, x):
    h = jax.nn.relu(x @ params[0]["w"] + params[0]["b"])
    return h @ params[1]["w"] + params[1]["b"]""",
    """d = 15
x_train = jnp.ones((6, d))
params = init_fn((-1, 1))""",
    "out = apply_fn(params, x_train)",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """def init_dense(in_dim, out_dim):
    return {"w": jnp.full((in_dim, out_dim), 0.1), "b": jnp.zeros(out_dim)}

def init_fn(input_shape, hidden=8):
    return [init_dense(input_shape[-1], hidden), init_dense(hidden, 1)]

def apply_fn(params, x):
    h = jax.nn.relu(x @ params[0]["w"] + params[0]["b"])
    return h @ params[1]["w"] + params[1]["b"]""",
    """d = 15
x_train = jnp.ones((6, d))
params = init_fn((-1, d))""",
    "out = apply_fn(params, x_train)",
)
CHECK = "out.shape == (6, 1) and abs(float(out[0, 0]) - 1.2) < 1e-5"
