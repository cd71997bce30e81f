"""Taking one optimiser step for a small regression model, where the gradient is computed from a loss written as a function of the model's predictions and the targets."""

URL = "https://github.com/google-deepmind/optax/issues/291"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''class SGD:
    """Tiny stand-in for optax.sgd: init / update(grads, state) / apply_updates."""
    def __init__(self, learning_rate):
        self.learning_rate = learning_rate

    def init(self, params):
        return ()

    def update(self, grads, state, params=None):
        return jax.tree.map(lambda g: -self.learning_rate * g, grads), state

def apply_updates(params, updates):
    return jax.tree.map(lambda p, u: p + u, params, updates)

def apply_model(params, x):
    return x @ params["w"] + params["b"]

def loss(preds, targets):
    return jnp.mean((preds - targets) ** 2)

x = jnp.array([[0.5, 1.0, -1.0], [1.5, 0.0, 2.0], [-0.5, 2.0, 1.0], [1.0, -1.0, 0.5], [2.0, 1.0, 0.0]])
y = jnp.array([[1.0], [3.0], [0.5], [-0.5], [2.5]])
params = {"w": jnp.array([[0.2], [-0.1], [0.3]]), "b": jnp.array([0.1])}

opt = SGD(learning_rate=0.05)
opt_state = opt.init(params)''',
    '''preds = apply_model(params, x)
grads = jax.grad(loss)(preds, y)
updates, opt_state = opt.update(grads, opt_state)
params = apply_updates(params, updates)''',
)
FIXED = (
    CELLS[0],
    CELLS[1],
    '''def loss_fn(params, x, targets):
    return loss(apply_model(params, x), targets)

grads = jax.grad(loss_fn)(params, x, y)
updates, opt_state = opt.update(grads, opt_state)
params = apply_updates(params, updates)''',
)
CHECK = """(lambda X, Y, W, B: (lambda R: np.allclose(np.asarray(params["w"]), W - 0.05 * (2.0 / R.size) * X.T @ R, atol=1e-5)
    and np.allclose(np.asarray(params["b"]), B - 0.05 * (2.0 / R.size) * R.sum(axis=0), atol=1e-5))(X @ W + B - Y))(
    np.array([[0.5, 1.0, -1.0], [1.5, 0.0, 2.0], [-0.5, 2.0, 1.0], [1.0, -1.0, 0.5], [2.0, 1.0, 0.0]]),
    np.array([[1.0], [3.0], [0.5], [-0.5], [2.5]]), np.array([[0.2], [-0.1], [0.3]]), np.array([0.1]))"""
