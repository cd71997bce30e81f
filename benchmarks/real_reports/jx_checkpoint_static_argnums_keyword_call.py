"""Taking the gradient through two rematerialised residual tanh blocks whose skip-connection flag is marked static with jax.checkpoint(static_argnums=1) but passed by keyword."""

URL = "https://github.com/jax-ml/jax/issues/18405"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom functools import partial",
    '''W = jnp.array([[0.2, -0.1, 0.3],
               [0.0, 0.4, -0.2],
               [0.1, 0.1, 0.1]])

@partial(jax.checkpoint, static_argnums=(1,))
def block(h, use_skip=False):
    out = jnp.tanh(h @ W)
    if use_skip:
        out = out + h
    return out

def loss(h):
    y = block(h, use_skip=True)
    y = block(y, use_skip=True)
    return jnp.sum(y ** 2)

h0 = jnp.array([[1.0, -0.5, 0.25],
                [0.3, 0.8, -1.2]])''',
    "g = jax.grad(loss)(h0)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom functools import partial",
    '''W = jnp.array([[0.2, -0.1, 0.3],
               [0.0, 0.4, -0.2],
               [0.1, 0.1, 0.1]])

@partial(jax.checkpoint, static_argnums=(1,))
def block(h, use_skip=False):
    out = jnp.tanh(h @ W)
    if use_skip:
        out = out + h
    return out

def loss(h):
    y = block(h, True)
    y = block(y, True)
    return jnp.sum(y ** 2)

h0 = jnp.array([[1.0, -0.5, 0.25],
                [0.3, 0.8, -1.2]])''',
    "g = jax.grad(loss)(h0)",
)
CHECK = ("(lambda W, h: (lambda t1: (lambda y1: (lambda t2: (lambda dy2: (lambda dy1: np.allclose(np.asarray(g), "
         "(dy1 * (1 - t1 ** 2)) @ W.T + dy1, atol=1e-5))((dy2 * (1 - t2 ** 2)) @ W.T + dy2))(2 * (t2 + y1)))"
         "(np.tanh(y1 @ W)))(t1 + h))(np.tanh(h @ W)))"
         "(np.array([[0.2, -0.1, 0.3], [0.0, 0.4, -0.2], [0.1, 0.1, 0.1]]), np.array([[1.0, -0.5, 0.25], [0.3, 0.8, -1.2]]))")
