"""Evaluating a small MLP with a dropout layer in inference mode through a jitted loss that takes a training flag."""

URL = "https://github.com/google/flax/issues/4085"
KIND = "fix"
CELLS = (
    'import jax, jax.numpy as jnp\nimport numpy as np\nfrom functools import partial',
    '''def dropout(x, rate, deterministic, key):
    """Stand-in for a Dropout layer: identity when deterministic."""
    if deterministic:
        return x
    keep = jax.random.bernoulli(key, 1.0 - rate, x.shape)
    return jnp.where(keep, x / (1.0 - rate), 0.0)

def dnn_apply(params, x, training, key):
    h = jax.nn.relu(x @ params["w1"] + params["b1"])
    h = dropout(h, 0.25, deterministic=not training, key=key)
    return h @ params["w2"] + params["b2"]

@jax.jit
def mse(params, X, y, training):
    pred = dnn_apply(params, X, training, jax.random.PRNGKey(114))[:, 0]
    return jnp.mean((pred - y) ** 2)

params = {
    "w1": jnp.array([[0.5, -0.4, 0.3], [0.1, 0.6, -0.2]]),
    "b1": jnp.array([0.05, 0.0, 0.1]),
    "w2": jnp.array([[0.7], [-0.3], [0.9]]),
    "b2": jnp.array([0.2]),
}
X_val = jnp.array([[1.0, 2.0], [-0.5, 0.3], [0.8, -1.2], [2.0, 0.5]])
y_val = jnp.array([0.9, 0.1, 0.6, 1.4])''',
    'val_loss = mse(params, X_val, y_val, False)',
)
FIXED = (
    'import jax, jax.numpy as jnp\nimport numpy as np\nfrom functools import partial',
    '''def dropout(x, rate, deterministic, key):
    """Stand-in for a Dropout layer: identity when deterministic."""
    if deterministic:
        return x
    keep = jax.random.bernoulli(key, 1.0 - rate, x.shape)
    return jnp.where(keep, x / (1.0 - rate), 0.0)

def dnn_apply(params, x, training, key):
    h = jax.nn.relu(x @ params["w1"] + params["b1"])
    h = dropout(h, 0.25, deterministic=not training, key=key)
    return h @ params["w2"] + params["b2"]

@partial(jax.jit, static_argnames="training")
def mse(params, X, y, training):
    pred = dnn_apply(params, X, training, jax.random.PRNGKey(114))[:, 0]
    return jnp.mean((pred - y) ** 2)

params = {
    "w1": jnp.array([[0.5, -0.4, 0.3], [0.1, 0.6, -0.2]]),
    "b1": jnp.array([0.05, 0.0, 0.1]),
    "w2": jnp.array([[0.7], [-0.3], [0.9]]),
    "b2": jnp.array([0.2]),
}
X_val = jnp.array([[1.0, 2.0], [-0.5, 0.3], [0.8, -1.2], [2.0, 0.5]])
y_val = jnp.array([0.9, 0.1, 0.6, 1.4])''',
    'val_loss = mse(params, X_val, y_val, False)',
)
CHECK = ("abs(float(val_loss) - float(np.mean(((np.maximum(np.array([[1.0, 2.0], [-0.5, 0.3], [0.8, -1.2], [2.0, 0.5]]) "
         "@ np.array([[0.5, -0.4, 0.3], [0.1, 0.6, -0.2]]) + np.array([0.05, 0.0, 0.1]), 0.0) "
         "@ np.array([0.7, -0.3, 0.9]) + 0.2) - np.array([0.9, 0.1, 0.6, 1.4])) ** 2))) < 1e-5")
