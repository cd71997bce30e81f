"""Combining two latent arrays laid out for nested plates, where both inner plates were placed on the same batch dimension."""

URL = "https://github.com/pyro-ppl/numpyro/issues/2010"
KIND = "diagnose"
CELLS = (
    "import jax, jax.numpy as jnp",
    """outer, inner = 3, [2, 4]
# a lives in plates (inner_0 at dim -3, outer at dim -1)
a = jnp.arange(1.0, 7.0).reshape(inner[0], 1, outer)
# b lives in plate inner_1, which was also put at dim -3
b = jnp.arange(4.0).reshape(inner[1], 1, 1)

def log_joint(a, b):
    a_fraction = a * b
    return jnp.sum(a_fraction)""",
    "total = log_joint(a, b)",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """outer, inner = 3, [2, 4]
# a lives in plates (inner_0 at dim -3, outer at dim -1)
a = jnp.arange(1.0, 7.0).reshape(inner[0], 1, outer)
# b lives in plate inner_1, now on its own dim -2
b = jnp.arange(4.0).reshape(1, inner[1], 1)

def log_joint(a, b):
    a_fraction = a * b
    return jnp.sum(a_fraction)""",
    "total = log_joint(a, b)\nshape = (a * b).shape",
)
# sum(a * b) = sum(a) * sum(b) = 21 * 6
CHECK = "shape == (2, 4, 3) and float(total) == 126.0"
