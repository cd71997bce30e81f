"""Updating a list of parameter arrays with -= inside a for loop and asserting the list was changed."""

URL = "https://github.com/jax-ml/jax/issues/226"
KIND = "silent"
CELLS = (
    "import jax, jax.numpy as jnp",
    '''params = [jnp.array([1.0, 2.0]), jnp.array([3.0])]
grads = [jnp.array([0.5, 0.5]), jnp.array([1.0])]
lr = 0.1''',
    '''for param, g in zip(params, grads):
    param -= lr * g
assert abs(float(params[0][0]) - 0.95) < 1e-6, params''',
)
FIXED = (
    "import jax, jax.numpy as jnp",
    '''params = [jnp.array([1.0, 2.0]), jnp.array([3.0])]
grads = [jnp.array([0.5, 0.5]), jnp.array([1.0])]
lr = 0.1''',
    '''params = [param - lr * g for param, g in zip(params, grads)]
assert abs(float(params[0][0]) - 0.95) < 1e-6, params''',
)
CHECK = "abs(float(params[0][1]) - 1.95) < 1e-6 and abs(float(params[1][0]) - 2.9) < 1e-6"
