"""A backtracking line-search step on a loss that returns (value, auxiliary residuals)."""

URL = "https://github.com/google-deepmind/optax/issues/1053"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    """c = jnp.array([1.0, 2.0])

def loss_fn(x):
    residual = x - c
    return jnp.sum(residual ** 2), residual

def linesearch_step(fun, x, max_halvings=10):
    value, g = jax.value_and_grad(fun)(x)
    t = 1.0
    for _ in range(max_halvings):
        x_new = x - t * g
        if fun(x_new) <= value - 0.5 * t * jnp.sum(g ** 2):
            break
        t = t / 2
    return x_new, t""",
    "x_new, t = linesearch_step(loss_fn, jnp.zeros(2))",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """c = jnp.array([1.0, 2.0])

def loss_fn(x):
    residual = x - c
    return jnp.sum(residual ** 2), residual

def linesearch_step(fun, x, max_halvings=10):
    (value, aux), g = jax.value_and_grad(fun, has_aux=True)(x)
    t = 1.0
    for _ in range(max_halvings):
        x_new = x - t * g
        new_value, aux = fun(x_new)
        if new_value <= value - 0.5 * t * jnp.sum(g ** 2):
            break
        t = t / 2
    return x_new, t""",
    "x_new, t = linesearch_step(loss_fn, jnp.zeros(2))",
)
CHECK = "bool(jnp.allclose(x_new, jnp.array([1.0, 2.0]))) and t == 0.5"
