"""Training a small recurrent network whose loss compares each sample's output trace with its target only from that sample's onset time step onward."""

URL = "https://github.com/brainpy/BrainPy/issues/607"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def run_net(params, X):
    """X: (T, batch, n_in) -> readout trace (T, batch)."""
    def step(h, x):
        h = jnp.tanh(x @ params["w_in"] + h @ params["w_rec"])
        return h, h @ params["w_out"]
    h0 = jnp.zeros((X.shape[1], params["w_rec"].shape[0]))
    _, out = jax.lax.scan(step, h0, X)
    return out[..., 0]

def loss(params, X, Y, gt):
    # Y: target per sample, gt: time step from which each sample's output is scored
    out = run_net(params, X)
    l = 0.0
    for i in range(X.shape[1]):
        idx = gt[i]
        l = l + ((out[idx:, i] - Y[i]) ** 2).sum()
    return l

grad_fn = jax.jit(jax.value_and_grad(loss))

params = {
    "w_in": jnp.array([[0.6, -0.4, 0.2], [0.1, 0.5, -0.3]]),
    "w_rec": jnp.array([[0.3, -0.2, 0.1], [0.0, 0.4, 0.2], [-0.1, 0.1, 0.5]]),
    "w_out": jnp.array([[0.7], [-0.5], [0.4]]),
}
X = jnp.sin(jnp.arange(6 * 4 * 2, dtype=jnp.float32).reshape(6, 4, 2) * 0.37)
Y = jnp.array([0.5, -0.2, 0.1, 0.3])
gt = jnp.array([2, 0, 4, 3])''',
    "value, grads = grad_fn(params, X, Y, gt)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    CELLS[1].replace('''    l = 0.0
    for i in range(X.shape[1]):
        idx = gt[i]
        l = l + ((out[idx:, i] - Y[i]) ** 2).sum()
    return l''', '''    t = jnp.arange(out.shape[0])[:, None]
    l = jnp.sum(jnp.where(t >= gt[None, :], (out - Y[None, :]) ** 2, 0.0))
    return l'''),
    "value, grads = grad_fn(params, X, Y, gt)",
)
CHECK = (
    "(lambda H: (lambda out, m: abs(float(value) - float((m * (out - np.array([0.5, -0.2, 0.1, 0.3])) ** 2).sum())) < 1e-4 "
    "and np.allclose(np.asarray(grads['w_out'])[:, 0], np.einsum('tb,tbk->k', 2 * m * (out - np.array([0.5, -0.2, 0.1, 0.3])), H), atol=1e-4))"
    "(H @ np.array([0.7, -0.5, 0.4]), (np.arange(6)[:, None] >= np.array([2, 0, 4, 3])[None, :]).astype(float)))"
    "((lambda Xn, Wi, Wr: np.stack(__import__('functools').reduce("
    "lambda acc, x: acc + [np.tanh(x @ Wi + acc[-1] @ Wr)], list(Xn), [np.zeros((4, 3))])[1:]))("
    "np.sin(np.arange(48, dtype=np.float64).reshape(6, 4, 2) * 0.37), "
    "np.array([[0.6, -0.4, 0.2], [0.1, 0.5, -0.3]]), "
    "np.array([[0.3, -0.2, 0.1], [0.0, 0.4, 0.2], [-0.1, 0.1, 0.5]])))"
)
