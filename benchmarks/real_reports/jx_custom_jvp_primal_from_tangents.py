"""A custom_jvp rule that slices its primal output out of a concatenation of primals and tangents, then jacfwd."""

URL = "https://github.com/jax-ml/jax/issues/7972"
KIND = "diagnose"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def identity(x):
    return x

identity = jax.custom_jvp(identity)

@identity.defjvp
def identity_jvp(primals, tangents):
    stacked = jnp.concatenate((*primals, *tangents))
    return stacked[:3], stacked[3:]''',
    "J = jax.jacfwd(identity)(jnp.array([5.0, 5.0, 5.0]))",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def identity(x):
    return x

identity = jax.custom_jvp(identity)

@identity.defjvp
def identity_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    return x, x_dot''',
    "J = jax.jacfwd(identity)(jnp.array([5.0, 5.0, 5.0]))",
)
CHECK = "np.allclose(np.asarray(J), np.eye(3))"
