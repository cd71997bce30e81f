"""Pulling a gradient back through a half-precision (float16) squared-error objective with jax.vjp, seeding the returned pullback with the Python number 1.0."""

URL = "https://github.com/jax-ml/jax/issues/9994"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''gains = jnp.array([0.5, -1.0, 2.0, 0.25], dtype=jnp.float16)
signal = jnp.array([1.0, 2.0, 3.0, 4.0], dtype=jnp.float16)

def half_energy(g):
    return 0.5 * jnp.sum((g * signal) ** 2)

energy, pullback = jax.vjp(half_energy, gains)
print(energy.dtype)''',
    "(d_gains,) = pullback(1.0)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''gains = jnp.array([0.5, -1.0, 2.0, 0.25], dtype=jnp.float16)
signal = jnp.array([1.0, 2.0, 3.0, 4.0], dtype=jnp.float16)

def half_energy(g):
    return 0.5 * jnp.sum((g * signal) ** 2)

energy, pullback = jax.vjp(half_energy, gains)
print(energy.dtype)''',
    "(d_gains,) = pullback(jnp.ones_like(energy))",
)
CHECK = "d_gains.dtype == jnp.float16 and np.allclose(np.asarray(d_gains, dtype=np.float64), np.array([0.5, -1.0, 2.0, 0.25]) * np.array([1.0, 2.0, 3.0, 4.0]) ** 2, rtol=1e-3)"
