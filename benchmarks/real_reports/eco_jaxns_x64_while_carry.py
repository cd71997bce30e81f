"""Running a nested-sampling style while_loop in 64-bit mode with a carry initialised as float32."""

URL = "https://github.com/Joshuaalbert/jaxns/issues/60"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    """def cond(state):
    i, log_Z = state
    return i < 5

def body(state):
    i, log_Z = state
    log_L = jnp.log(jnp.arange(1.0, 6.0))    # likelihood contour of each step
    return i + 1, log_Z + log_L[i]""",
    """with jax.enable_x64(True):
    i, log_Z = jax.lax.while_loop(cond, body, (jnp.int32(0), jnp.float32(0.0)))""",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """def cond(state):
    i, log_Z = state
    return i < 5

def body(state):
    i, log_Z = state
    log_L = jnp.log(jnp.arange(1.0, 6.0))    # likelihood contour of each step
    return i + 1, log_Z + log_L[i]""",
    """with jax.enable_x64(True):
    i, log_Z = jax.lax.while_loop(cond, body, (jnp.int32(0), jnp.asarray(0.0)))""",
)
CHECK = "int(i) == 5 and log_Z.dtype == jnp.float64 and abs(float(log_Z) - 4.787491742782046) < 1e-12"
