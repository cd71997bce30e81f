"""Clipping each example's gradient to a maximum global L2 norm for differentially private SGD, with the global norm taken over a list of per-parameter norms."""

URL = "https://github.com/jax-ml/jax/issues/15500"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def loss(params, x, y):
    pred = x @ params["w"] + params["b"]
    return 0.5 * jnp.sum((pred - y) ** 2)

def clipped_example_grad(params, x, y, max_norm=1.0):
    grads = jax.grad(loss)(params, x, y)
    leaves, treedef = jax.tree_util.tree_flatten(grads)
    total = jnp.linalg.norm([jnp.linalg.norm(g.ravel()) for g in leaves])
    scale = jnp.maximum(total / max_norm, 1.0)
    return jax.tree_util.tree_unflatten(treedef, [g / scale for g in leaves])

params = {"w": jnp.array([[0.5], [-1.0], [2.0]]), "b": jnp.array([0.25])}
xs = jnp.array([[1.0, 0.0, 2.0], [0.1, 0.2, 0.1], [3.0, -1.0, 0.5]])
ys = jnp.array([[1.0], [0.0], [-2.0]])''',
    "per_example = jax.vmap(clipped_example_grad, in_axes=(None, 0, 0))(params, xs, ys)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def loss(params, x, y):
    pred = x @ params["w"] + params["b"]
    return 0.5 * jnp.sum((pred - y) ** 2)

def clipped_example_grad(params, x, y, max_norm=1.0):
    grads = jax.grad(loss)(params, x, y)
    leaves, treedef = jax.tree_util.tree_flatten(grads)
    total = jnp.linalg.norm(jnp.array([jnp.linalg.norm(g.ravel()) for g in leaves]))
    scale = jnp.maximum(total / max_norm, 1.0)
    return jax.tree_util.tree_unflatten(treedef, [g / scale for g in leaves])

params = {"w": jnp.array([[0.5], [-1.0], [2.0]]), "b": jnp.array([0.25])}
xs = jnp.array([[1.0, 0.0, 2.0], [0.1, 0.2, 0.1], [3.0, -1.0, 0.5]])
ys = jnp.array([[1.0], [0.0], [-2.0]])''',
    "per_example = jax.vmap(clipped_example_grad, in_axes=(None, 0, 0))(params, xs, ys)",
)
CHECK = ("(lambda X, Y, W, B: (lambda R: (lambda G: np.allclose(np.asarray(per_example['w'])[:, :, 0], "
         "(G / np.maximum(np.linalg.norm(np.concatenate([G, R], axis=1), axis=1) / 1.0, 1.0)[:, None]), atol=1e-5) "
         "and np.allclose(np.asarray(per_example['b'])[:, 0], R[:, 0] / np.maximum(np.linalg.norm(np.concatenate([G, R], axis=1), axis=1), 1.0), atol=1e-5))"
         "(X * R))(X @ W + B - Y))"
         "(np.array([[1.0, 0.0, 2.0], [0.1, 0.2, 0.1], [3.0, -1.0, 0.5]]), np.array([[1.0], [0.0], [-2.0]]), "
         "np.array([[0.5], [-1.0], [2.0]]), np.array([0.25]))")
