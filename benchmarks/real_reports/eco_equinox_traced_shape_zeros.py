"""Building an array inside a jitted function whose shape is passed in as an ordinary (traced) argument."""

URL = "https://github.com/patrick-kidger/equinox/issues/236"
KIND = "fix"
CELLS = (
    "import functools\nimport jax, jax.numpy as jnp",
    """@jax.jit
def make_grid(state, shape):
    return jnp.zeros(shape) + state["bias"]

state = {"bias": jnp.array(1.5)}""",
    "grid = make_grid(state, (2, 3))",
)
FIXED = (
    "import functools\nimport jax, jax.numpy as jnp",
    """@functools.partial(jax.jit, static_argnames="shape")
def make_grid(state, shape):
    return jnp.zeros(shape) + state["bias"]

state = {"bias": jnp.array(1.5)}""",
    "grid = make_grid(state, shape=(2, 3))",
)
CHECK = "grid.shape == (2, 3) and abs(float(grid.sum()) - 9.0) < 1e-6"
