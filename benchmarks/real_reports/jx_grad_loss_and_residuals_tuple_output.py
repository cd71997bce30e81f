"""Taking the gradient of a least-squares loss that also returns its residual vector for logging."""

URL = "https://github.com/jax-ml/jax/issues/6213"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''X = jnp.array([[1.0, 2.0], [3.0, -1.0], [0.5, 4.0]])
y = jnp.array([2.0, 1.0, -3.0])
w = jnp.array([0.25, -0.5])

def fit_loss(w, X, y):
    resid = X @ w - y
    return jnp.sum(resid ** 2), resid''',
    "g, resid = jax.grad(fit_loss)(w, X, y)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''X = jnp.array([[1.0, 2.0], [3.0, -1.0], [0.5, 4.0]])
y = jnp.array([2.0, 1.0, -3.0])
w = jnp.array([0.25, -0.5])

def fit_loss(w, X, y):
    resid = X @ w - y
    return jnp.sum(resid ** 2), resid''',
    "g, resid = jax.grad(fit_loss, has_aux=True)(w, X, y)",
)
CHECK = ("np.allclose(np.asarray(g), 2 * np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 4.0]]).T @ (np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 4.0]]) @ np.array([0.25, -0.5]) - np.array([2.0, 1.0, -3.0])), rtol=1e-5)"
         " and np.allclose(np.asarray(resid), np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 4.0]]) @ np.array([0.25, -0.5]) - np.array([2.0, 1.0, -3.0]), rtol=1e-5)")
