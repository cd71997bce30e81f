"""Taking one training step of a small MLP with a batch-norm layer whose moving averages are kept in a separate state tree (haiku transform_with_state style)."""

URL = "https://github.com/google-deepmind/dm-haiku/issues/513"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''DECAY = 0.9

def ema_update(ema, value):
    """Stand-in for hk.ExponentialMovingAverage: debiased running average with a step counter."""
    counter = ema["counter"] + 1
    hidden = DECAY * ema["hidden"] + (1 - DECAY) * value
    return {"hidden": hidden, "average": hidden / (1 - DECAY ** counter), "counter": counter}

def ema_init(size):
    return {"hidden": jnp.zeros(size), "average": jnp.zeros(size), "counter": jnp.array(0, dtype=jnp.int32)}

def forward_apply(params, state, x):
    """Linear -> BatchNorm (training mode) -> relu -> Linear; returns (prediction, new_state)."""
    h = x @ params["linear1"]["w"] + params["linear1"]["b"]
    mean = h.mean(axis=0)
    var = ((h - mean) ** 2).mean(axis=0)
    h = (h - mean) / jnp.sqrt(var + 1e-5) * params["bn"]["scale"] + params["bn"]["offset"]
    h = jax.nn.relu(h)
    new_state = {"mean_ema": ema_update(state["mean_ema"], mean),
                 "var_ema": ema_update(state["var_ema"], var)}
    return (h @ params["linear2"]["w"])[:, 0], new_state

def loss_fn(params, state, x, y):
    pred, new_state = forward_apply(params, state, x)
    return jnp.mean((pred - y) ** 2), new_state

params = {
    "linear1": {"w": jnp.array([[0.5, -0.3, 0.8], [0.2, 0.7, -0.4]]), "b": jnp.array([0.1, 0.0, -0.1])},
    "bn": {"scale": jnp.ones(3), "offset": jnp.array([0.2, 0.1, 0.3])},
    "linear2": {"w": jnp.array([[0.6], [-0.4], [0.9]])},
}
state = {"mean_ema": ema_init(3), "var_ema": ema_init(3)}
x = jnp.array([[1.0, 0.5], [-0.3, 1.2], [0.8, -0.7], [0.1, 0.4]])
y = jnp.array([0.7, -0.1, 0.4, 0.2])
grad_fn = jax.value_and_grad(loss_fn, argnums=(0, 1), has_aux=True)''',
    '''(loss, new_state), grads = grad_fn(params, state, x, y)
new_params = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads[0])''',
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    CELLS[1].replace("argnums=(0, 1), has_aux=True", "has_aux=True"),
    '''(loss, new_state), grads = grad_fn(params, state, x, y)
new_params = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)''',
)
CHECK = (
    "(lambda X, Y: (lambda h: (lambda hn: (lambda r: (lambda pred: "
    "abs(float(loss) - float(np.mean((pred - Y) ** 2))) < 1e-5 "
    "and np.allclose(np.asarray(new_params['linear2']['w'])[:, 0], np.array([0.6, -0.4, 0.9]) - 0.1 * (2 / 4) * r.T @ (pred - Y), atol=1e-5) "
    "and int(new_state['mean_ema']['counter']) == 1 "
    "and np.allclose(np.asarray(new_state['mean_ema']['average']), h.mean(0), atol=1e-5))"
    "(r @ np.array([0.6, -0.4, 0.9])))(np.maximum(hn + np.array([0.2, 0.1, 0.3]), 0)))"
    "((h - h.mean(0)) / np.sqrt(h.var(0) + 1e-5)))"
    "(X @ np.array([[0.5, -0.3, 0.8], [0.2, 0.7, -0.4]]) + np.array([0.1, 0.0, -0.1])))"
    "(np.array([[1.0, 0.5], [-0.3, 1.2], [0.8, -0.7], [0.1, 0.4]]), np.array([0.7, -0.1, 0.4, 0.2]))"
)
