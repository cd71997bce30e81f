"""Building a time grid inside a jitted projectile model, with the number of grid points worked out from fixed start, end and step constants using jnp arithmetic."""

URL = "https://github.com/jax-ml/jax/issues/5208"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''@jax.jit
def heights(v0):
    t0, t1, dt = 0.0, 2.0, 0.25
    n_steps = jnp.maximum(jnp.ceil((t1 - t0) / dt), 1).astype(int)
    ts = jnp.linspace(t0, t1, n_steps + 1)
    return v0 * ts - 0.5 * 9.81 * ts ** 2''',
    "h = heights(12.0)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''@jax.jit
def heights(v0):
    t0, t1, dt = 0.0, 2.0, 0.25
    n_steps = int(max(np.ceil((t1 - t0) / dt), 1))
    ts = jnp.linspace(t0, t1, n_steps + 1)
    return v0 * ts - 0.5 * 9.81 * ts ** 2''',
    "h = heights(12.0)",
)
CHECK = ("h.shape == (9,) and np.allclose(np.asarray(h), "
         "12.0 * np.linspace(0, 2, 9) - 0.5 * 9.81 * np.linspace(0, 2, 9) ** 2, atol=1e-4)")
