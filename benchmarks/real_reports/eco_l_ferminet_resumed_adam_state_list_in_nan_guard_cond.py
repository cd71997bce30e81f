"""Resuming training from a NumPy .npz checkpoint that stores the parameters and the Adam optimiser state, with a jitted step that keeps the old state via lax.cond when the loss is not finite."""

URL = "https://github.com/google-deepmind/ferminet/pull/105"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nimport io",
    '''def adam_init(params):
    zeros = jax.tree.map(jnp.zeros_like, params)
    return (jnp.zeros((), jnp.int32), zeros, zeros)     # (count, mu, nu)

def adam_update(grads, state, lr=0.1, b1=0.9, b2=0.999, eps=1e-8):
    count, mu, nu = state
    count = count + 1
    mu = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, mu, grads)
    nu = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, nu, grads)
    c1, c2 = 1 - b1 ** count, 1 - b2 ** count
    updates = jax.tree.map(lambda m, v: -lr * (m / c1) / (jnp.sqrt(v / c2) + eps), mu, nu)
    return updates, (count, mu, nu)

def loss_fn(params, x, y):
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)

@jax.jit
def train_step(params, opt_state, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    updates, new_opt_state = adam_update(grads, opt_state)
    new_params = jax.tree.map(lambda p, u: p + u, params, updates)
    # reset_if_nan: keep the previous parameters and optimiser state on a bad step
    return jax.lax.cond(jnp.isfinite(loss),
                        lambda: (new_params, new_opt_state),
                        lambda: (params, opt_state))

x = jnp.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, -1.0]])
y = jnp.array([1.0, -1.0, 0.5, 3.0])
params = {"w": jnp.array([0.5, 0.5]), "b": jnp.array(0.0)}
opt_state = adam_init(params)
for _ in range(3):
    params, opt_state = train_step(params, opt_state, x, y)

# save a checkpoint, then load it back as when restarting a run
buf = io.BytesIO()
np.savez(buf, params=np.asarray(params, dtype=object), opt_state=np.asarray(opt_state, dtype=object))
buf.seek(0)
ckpt = np.load(buf, allow_pickle=True)''',
    '''params = ckpt["params"].tolist()
opt_state = ckpt["opt_state"].tolist()
params, opt_state = train_step(params, opt_state, x, y)''',
)
FIXED = (
    CELLS[0],
    CELLS[1],
    '''params = ckpt["params"].tolist()
opt_state = tuple(ckpt["opt_state"].tolist())
params, opt_state = train_step(params, opt_state, x, y)''',
)
CHECK = """(lambda X, Y: (lambda run: np.allclose(np.asarray(params["w"]), run[0], atol=1e-5) and abs(float(params["b"]) - run[1]) < 1e-5)(
    __import__('functools').reduce(
        lambda s, i: (lambda r: (lambda gw, gb: (lambda mw, mb, vw, vb: (
            s[0] - 0.1 * (mw / (1 - 0.9 ** i)) / (np.sqrt(vw / (1 - 0.999 ** i)) + 1e-8),
            s[1] - 0.1 * (mb / (1 - 0.9 ** i)) / (np.sqrt(vb / (1 - 0.999 ** i)) + 1e-8),
            mw, mb, vw, vb))(0.9 * s[2] + 0.1 * gw, 0.9 * s[3] + 0.1 * gb, 0.999 * s[4] + 0.001 * gw ** 2, 0.999 * s[5] + 0.001 * gb ** 2))(
            2 * X.T @ r / len(Y), 2 * r.mean()))(X @ s[0] + s[1] - Y),
        range(1, 5), (np.array([0.5, 0.5]), 0.0, np.zeros(2), 0.0, np.zeros(2), 0.0))))(
    np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, -1.0]]), np.array([1.0, -1.0, 0.5, 3.0]))"""
