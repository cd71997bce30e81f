"""Taking jax.grad of a squared-error loss that stays complex because the model weight is complex."""

URL = "https://github.com/jax-ml/jax/issues/4996"
KIND = "diagnose"
CELLS = (
    "import jax, jax.numpy as jnp",
    '''inputs = jnp.array([1.0 + 1.0j, 2.0 + 0.0j])
targets = jnp.array([1.0 + 0.0j, 1.0 + 0.0j])

def loss(w):
    return jnp.mean((w * inputs - targets) ** 2)''',
    "g = jax.grad(loss)(jnp.complex64(0.3 + 0.2j))",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    '''inputs = jnp.array([1.0 + 1.0j, 2.0 + 0.0j])
targets = jnp.array([1.0 + 0.0j, 1.0 + 0.0j])

def loss(w):
    return jnp.mean(jnp.abs(w * inputs - targets) ** 2)''',
    "g = jax.grad(loss)(jnp.complex64(0.3 + 0.2j))",
)
CHECK = "abs(complex(g) - (-1.2 - 2.2j)) < 1e-5"
