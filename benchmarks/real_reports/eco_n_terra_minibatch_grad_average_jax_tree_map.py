"""Averaging the value-head gradients of several PPO minibatches, kept as parameter dicts, with jax.tree_map before one SGD step, as in an older RL training script."""

URL = "https://github.com/leggedrobotics/terra-baselines/issues/4"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def value_loss(params, obs, returns):
    pred = obs @ params["w"] + params["b"]
    return jnp.mean((pred - returns) ** 2)

params = {"w": jnp.array([0.5, -0.25]), "b": jnp.array(0.1)}
obs_all = jnp.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0],
                     [2.0, 0.0], [0.0, 2.0], [1.0, -1.0]])
ret_all = jnp.array([1.0, 0.0, 0.5, 2.0, -1.0, 1.5])
minibatches = [(obs_all[i:i + 2], ret_all[i:i + 2]) for i in range(0, 6, 2)]
grads = [jax.grad(value_loss)(params, o, r) for o, r in minibatches]''',
    '''mean_grad = jax.tree_map(lambda *g: jnp.mean(jnp.stack(g), axis=0), *grads)
new_params = jax.tree_map(lambda p, g: p - 0.1 * g, params, mean_grad)''',
)
FIXED = (
    CELLS[0],
    CELLS[1],
    '''mean_grad = jax.tree.map(lambda *g: jnp.mean(jnp.stack(g), axis=0), *grads)
new_params = jax.tree.map(lambda p, g: p - 0.1 * g, params, mean_grad)''',
)
CHECK = ("(lambda X, y, w, b: (lambda gw, gb: np.allclose(np.asarray(new_params['w']), w - 0.1 * gw, atol=1e-5) "
         "and np.isclose(float(new_params['b']), b - 0.1 * gb, atol=1e-5))("
         "np.mean([2 / 2 * X[i:i+2].T @ (X[i:i+2] @ w + b - y[i:i+2]) for i in (0, 2, 4)], axis=0), "
         "np.mean([2 / 2 * np.sum(X[i:i+2] @ w + b - y[i:i+2]) for i in (0, 2, 4)])))("
         "np.array([[1., 0.], [0., 1.], [1., 1.], [2., 0.], [0., 2.], [1., -1.]]), "
         "np.array([1., 0., .5, 2., -1., 1.5]), np.array([.5, -.25]), .1)")
