"""Distilling a small support set for kernel ridge regression: the jitted loss predicts target labels through a regularised kernel solve, written with SciPy's old positive-definite flag, and its gradient is taken with respect to the support points."""

URL = "https://github.com/GGchen1997/BDI/issues/2"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax.scipy.linalg import solve",
    '''def rbf(a, b, length=0.9):
    sq = jnp.sum((a[:, None, :] - b[None, :, :]) ** 2, axis=-1)
    return jnp.exp(-0.5 * sq / length ** 2)

x_target = jnp.array([[0.0, 0.1], [0.4, 0.9], [1.0, 0.2], [1.3, 1.1], [0.7, 0.5], [0.2, 1.4]])
y_target = jnp.array([0.1, 0.8, 0.5, 1.2, 0.6, 0.9])
x_support = jnp.array([[0.1, 0.2], [0.9, 0.4], [0.5, 1.2], [1.2, 0.9]])
y_support = jnp.array([0.2, 0.5, 0.9, 1.0])

@jax.jit
def distill_loss(x_sup, y_sup, reg=1e-3):
    k_ss = rbf(x_sup, x_sup)
    k_ts = rbf(x_target, x_sup)
    k_reg = k_ss + reg * jnp.eye(k_ss.shape[0])
    alpha = solve(k_reg, y_sup, sym_pos=True)
    pred = k_ts @ alpha
    return 0.5 * jnp.sum((pred - y_target) ** 2)''',
    "loss, grad_x = jax.value_and_grad(distill_loss)(x_support, y_support)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax.scipy.linalg import solve",
    '''def rbf(a, b, length=0.9):
    sq = jnp.sum((a[:, None, :] - b[None, :, :]) ** 2, axis=-1)
    return jnp.exp(-0.5 * sq / length ** 2)

x_target = jnp.array([[0.0, 0.1], [0.4, 0.9], [1.0, 0.2], [1.3, 1.1], [0.7, 0.5], [0.2, 1.4]])
y_target = jnp.array([0.1, 0.8, 0.5, 1.2, 0.6, 0.9])
x_support = jnp.array([[0.1, 0.2], [0.9, 0.4], [0.5, 1.2], [1.2, 0.9]])
y_support = jnp.array([0.2, 0.5, 0.9, 1.0])

@jax.jit
def distill_loss(x_sup, y_sup, reg=1e-3):
    k_ss = rbf(x_sup, x_sup)
    k_ts = rbf(x_target, x_sup)
    k_reg = k_ss + reg * jnp.eye(k_ss.shape[0])
    alpha = solve(k_reg, y_sup, assume_a='pos')
    pred = k_ts @ alpha
    return 0.5 * jnp.sum((pred - y_target) ** 2)''',
    "loss, grad_x = jax.value_and_grad(distill_loss)(x_support, y_support)",
)
CHECK = ("grad_x.shape == (4, 2) and bool(np.all(np.isfinite(np.asarray(grad_x)))) and "
         "(lambda xs, ys, xt, yt: np.isclose(float(loss), 0.5 * np.sum(("
         "np.exp(-0.5 * ((xt[:, None] - xs[None]) ** 2).sum(-1) / 0.81) @ np.linalg.solve("
         "np.exp(-0.5 * ((xs[:, None] - xs[None]) ** 2).sum(-1) / 0.81) + 1e-3 * np.eye(4), ys) - yt) ** 2), rtol=1e-3, atol=1e-5))("
         "np.array([[0.1, 0.2], [0.9, 0.4], [0.5, 1.2], [1.2, 0.9]]), np.array([0.2, 0.5, 0.9, 1.0]), "
         "np.array([[0.0, 0.1], [0.4, 0.9], [1.0, 0.2], [1.3, 1.1], [0.7, 0.5], [0.2, 1.4]]), np.array([0.1, 0.8, 0.5, 1.2, 0.6, 0.9]))")
