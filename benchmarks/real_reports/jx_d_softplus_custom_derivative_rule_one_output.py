"""Writing a numerically stable softplus with jax.custom_jvp whose derivative is the logistic sigmoid, then tabulating its slope at a few points with vmap(grad)."""

URL = "https://github.com/jax-ml/jax/issues/2516"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''@jax.custom_jvp
def softplus(x):
    return jnp.logaddexp(x, 0.0)

@softplus.defjvp
def softplus_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return jax.nn.sigmoid(x) * x_dot

xs = jnp.array([-30.0, -1.0, 0.0, 2.0, 40.0])''',
    "slopes = jax.vmap(jax.grad(softplus))(xs)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''@jax.custom_jvp
def softplus(x):
    return jnp.logaddexp(x, 0.0)

@softplus.defjvp
def softplus_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return softplus(x), jax.nn.sigmoid(x) * x_dot

xs = jnp.array([-30.0, -1.0, 0.0, 2.0, 40.0])''',
    "slopes = jax.vmap(jax.grad(softplus))(xs)",
)
CHECK = "np.allclose(np.asarray(slopes), 1.0 / (1.0 + np.exp(-np.array([-30.0, -1.0, 0.0, 2.0, 40.0]))), atol=1e-6)"
