"""One Adam step, written by hand, on a linear model whose gradient was taken with respect to the targets instead of the weights."""

URL = "https://github.com/google-deepmind/optax/issues/808"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    """x = jnp.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
targets = 2 * x - 3
params = {"W": jnp.ones((3, 3))}

def adam_init(params):
    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    return {"mu": zeros, "nu": zeros, "count": 0}

def adam_update(grads, state, lr=0.002, b1=0.9, b2=0.999, eps=1e-8):
    mu = jax.tree_util.tree_map(lambda g, m: (1 - b1) * g + b1 * m, grads, state["mu"])
    nu = jax.tree_util.tree_map(lambda g, v: (1 - b2) * g ** 2 + b2 * v, grads, state["nu"])
    count = state["count"] + 1
    updates = jax.tree_util.tree_map(
        lambda m, v: -lr * (m / (1 - b1 ** count)) / (jnp.sqrt(v / (1 - b2 ** count)) + eps), mu, nu)
    return updates, {"mu": mu, "nu": nu, "count": count}

def apply_updates(params, updates):
    return jax.tree_util.tree_map(lambda p, u: p + u, params, updates)

opt_state = adam_init(params)""",
    """def predict(x):
    return x @ params["W"]

def mse(targets, x):
    return jnp.mean((targets - predict(x)) ** 2)

loss_value, grads = jax.value_and_grad(mse)(targets, x)
updates, opt_state = adam_update(grads, opt_state)
params = apply_updates(params, updates)""",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """x = jnp.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
targets = 2 * x - 3
params = {"W": jnp.ones((3, 3))}

def adam_init(params):
    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    return {"mu": zeros, "nu": zeros, "count": 0}

def adam_update(grads, state, lr=0.002, b1=0.9, b2=0.999, eps=1e-8):
    mu = jax.tree_util.tree_map(lambda g, m: (1 - b1) * g + b1 * m, grads, state["mu"])
    nu = jax.tree_util.tree_map(lambda g, v: (1 - b2) * g ** 2 + b2 * v, grads, state["nu"])
    count = state["count"] + 1
    updates = jax.tree_util.tree_map(
        lambda m, v: -lr * (m / (1 - b1 ** count)) / (jnp.sqrt(v / (1 - b2 ** count)) + eps), mu, nu)
    return updates, {"mu": mu, "nu": nu, "count": count}

def apply_updates(params, updates):
    return jax.tree_util.tree_map(lambda p, u: p + u, params, updates)

opt_state = adam_init(params)""",
    """def predict(params, x):
    return x @ params["W"]

def mse(params, targets, x):
    return jnp.mean((targets - predict(params, x)) ** 2)

loss_value, grads = jax.value_and_grad(mse)(params, targets, x)
updates, opt_state = adam_update(grads, opt_state)
params = apply_updates(params, updates)""",
)
CHECK = ("abs(float(loss_value) - 13.0) < 1e-5 "
         "and abs(float(grads['W'][0, 0]) - 1.0) < 1e-5 "
         "and abs(float(grads['W'][0, 1]) - 1.3333333) < 1e-5 "
         "and bool(jnp.allclose(params['W'], 0.998, atol=1e-6))")
