"""Building a ramp with jnp.arange whose stop value is an argument of the jitted function."""

URL = "https://github.com/jax-ml/jax/issues/5186"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    '''def ramp(n):
    return jnp.arange(0, n, 1) * 0.5

ramp_jit = jax.jit(ramp)''',
    "r = ramp_jit(5)",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    '''def ramp(n):
    return jnp.arange(0, n, 1) * 0.5

ramp_jit = jax.jit(ramp, static_argnums=0)''',
    "r = ramp_jit(5)",
)
CHECK = "r.tolist() == [0.0, 0.5, 1.0, 1.5, 2.0]"
