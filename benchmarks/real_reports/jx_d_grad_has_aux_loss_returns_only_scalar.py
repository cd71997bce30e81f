"""Getting both the parameter gradient and the predictions of a linear-regression loss from one jax.grad(has_aux=True) call, with the loss function still returning just the mean squared error."""

URL = "https://github.com/jax-ml/jax/issues/1105"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''x = jnp.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0], [-2.0, 1.5]])
y = jnp.array([1.0, 0.0, 2.5, -1.0])
params = {"w": jnp.array([0.2, -0.1]), "b": jnp.array(0.3)}

def mse(params, x, y):
    preds = x @ params["w"] + params["b"]
    return jnp.mean((preds - y) ** 2)

grad_and_preds = jax.grad(mse, has_aux=True)''',
    "grads, preds = grad_and_preds(params, x, y)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''x = jnp.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0], [-2.0, 1.5]])
y = jnp.array([1.0, 0.0, 2.5, -1.0])
params = {"w": jnp.array([0.2, -0.1]), "b": jnp.array(0.3)}

def mse(params, x, y):
    preds = x @ params["w"] + params["b"]
    return jnp.mean((preds - y) ** 2), preds

grad_and_preds = jax.grad(mse, has_aux=True)''',
    "grads, preds = grad_and_preds(params, x, y)",
)
CHECK = ("(lambda X, Y, p: np.allclose(np.asarray(preds), p, atol=1e-6) "
         "and np.allclose(np.asarray(grads['w']), 2 * X.T @ (p - Y) / len(Y), atol=1e-5) "
         "and np.isclose(float(grads['b']), 2 * np.mean(p - Y), atol=1e-5))"
         "(np.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0], [-2.0, 1.5]]), np.array([1.0, 0.0, 2.5, -1.0]), "
         "np.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0], [-2.0, 1.5]]) @ np.array([0.2, -0.1]) + 0.3)")
