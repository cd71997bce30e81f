"""Computing a logistic-regression loss and its gradient with value_and_grad(has_aux=True), returning the predictions and the accuracy as two separate extra outputs."""

URL = "https://github.com/jax-ml/jax/issues/5776"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''X = jnp.array([[1.0, 0.5], [-0.3, 1.2], [0.8, -1.0], [-1.5, -0.2]])
y = jnp.array([1.0, 1.0, 0.0, 0.0])
w = jnp.array([0.4, -0.3])

def loss_fn(w):
    p = jax.nn.sigmoid(X @ w)
    nll = -jnp.mean(y * jnp.log(p) + (1 - y) * jnp.log(1 - p))
    acc = jnp.mean((p > 0.5) == (y > 0.5))
    return nll, p, acc''',
    "(nll, (p, acc)), g = jax.value_and_grad(loss_fn, has_aux=True)(w)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''X = jnp.array([[1.0, 0.5], [-0.3, 1.2], [0.8, -1.0], [-1.5, -0.2]])
y = jnp.array([1.0, 1.0, 0.0, 0.0])
w = jnp.array([0.4, -0.3])

def loss_fn(w):
    p = jax.nn.sigmoid(X @ w)
    nll = -jnp.mean(y * jnp.log(p) + (1 - y) * jnp.log(1 - p))
    acc = jnp.mean((p > 0.5) == (y > 0.5))
    return nll, (p, acc)''',
    "(nll, (p, acc)), g = jax.value_and_grad(loss_fn, has_aux=True)(w)",
)
CHECK = ("(lambda X, y, w: (lambda p: np.allclose(np.asarray(g), X.T @ (p - y) / 4, atol=1e-5) and "
         "np.isclose(float(nll), -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)), atol=1e-5) and "
         "np.isclose(float(acc), np.mean((p > 0.5) == (y > 0.5))))(1 / (1 + np.exp(-(X @ w)))))"
         "(np.array([[1.0, 0.5], [-0.3, 1.2], [0.8, -1.0], [-1.5, -0.2]]), np.array([1.0, 1.0, 0.0, 0.0]), np.array([0.4, -0.3]))")
