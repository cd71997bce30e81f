"""A custom_jvp log-normalizer whose JVP returns a length-1 tangent for a scalar primal output."""

URL = "https://github.com/jax-ml/jax/issues/2502"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    '''@jax.custom_jvp
def log_norm(q):
    return jnp.logaddexp(q[0], 0.0)

@log_norm.defjvp
def log_norm_jvp(primals, tangents):
    q, = primals
    q_dot, = tangents
    return log_norm(q), jax.nn.sigmoid(q) * q_dot

def xent(p, q):
    return -jnp.sum(p * q) + log_norm(q)''',
    "g = jax.grad(xent, argnums=1)(jnp.array([0.4]), jnp.array([0.0]))",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    '''@jax.custom_jvp
def log_norm(q):
    return jnp.logaddexp(q[0], 0.0)

@log_norm.defjvp
def log_norm_jvp(primals, tangents):
    q, = primals
    q_dot, = tangents
    return log_norm(q), jax.nn.sigmoid(q[0]) * q_dot[0]

def xent(p, q):
    return -jnp.sum(p * q) + log_norm(q)''',
    "g = jax.grad(xent, argnums=1)(jnp.array([0.4]), jnp.array([0.0]))",
)
CHECK = "g.shape == (1,) and abs(float(g[0]) - 0.1) < 1e-6"
