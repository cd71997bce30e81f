"""Jitting one gradient step of a tiny NeRF that renders a batch of rays, where the step function also receives the model object and the number of samples per ray."""

URL = "https://github.com/codestella/putting-nerf-on-a-diet/pull/11"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''class TinyNeRF:
    """Stand-in for the flax module: an MLP mapping 3-D points to (rgb, density)."""
    def apply(self, params, pts):
        h = jnp.tanh(pts @ params["w1"] + params["b1"])
        out = h @ params["w2"] + params["b2"]
        return jax.nn.sigmoid(out[..., :3]), jax.nn.relu(out[..., 3])

def render_rays(model, params, rays_o, rays_d, near, far, N_samples):
    t = jnp.linspace(near, far, N_samples)
    pts = rays_o[:, None, :] + rays_d[:, None, :] * t[None, :, None]
    rgb, sigma = model.apply(params, pts)
    delta = jnp.concatenate([jnp.diff(t), jnp.array([1e10])])
    alpha = 1.0 - jnp.exp(-sigma * delta)
    trans = jnp.cumprod(1.0 - alpha + 1e-10, axis=-1)
    trans = jnp.concatenate([jnp.ones_like(trans[:, :1]), trans[:, :-1]], axis=-1)
    return jnp.sum((alpha * trans)[..., None] * rgb, axis=1)

def single_step_wojit(params, rays_o, rays_d, target, lr, step, model, N_samples):
    def loss_fn(p):
        rgb = render_rays(model, p, rays_o, rays_d, 2.0, 6.0, N_samples)
        return jnp.mean((rgb - target) ** 2)
    loss, grads = jax.value_and_grad(loss_fn)(params)
    new_params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
    return new_params, loss

single_step = jax.jit(single_step_wojit)

k1, k2 = jax.random.split(jax.random.PRNGKey(0))
params = {"w1": 0.5 * jax.random.normal(k1, (3, 8)), "b1": jnp.zeros(8),
          "w2": 0.5 * jax.random.normal(k2, (8, 4)), "b2": jnp.array([0.0, 0.0, 0.0, 0.3])}
model = TinyNeRF()
rays_o = jnp.array([[0.0, 0.0, -1.0], [0.2, -0.1, -1.0], [-0.3, 0.2, -1.0]])
rays_d = jnp.array([[0.0, 0.0, 1.0], [0.1, 0.0, 1.0], [0.0, -0.1, 1.0]])
target = jnp.array([[0.8, 0.3, 0.2], [0.5, 0.5, 0.5], [0.1, 0.6, 0.9]])''',
    "params1, loss0 = single_step(params, rays_o, rays_d, target, 0.5, 0, model, 16)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    CELLS[1].replace("single_step = jax.jit(single_step_wojit)",
                     "single_step = jax.jit(single_step_wojit, static_argnums=(6, 7))"),
    "params1, loss0 = single_step(params, rays_o, rays_d, target, 0.5, 0, model, 16)",
)
CHECK = (
    "(lambda np_loss: abs(np_loss(params) - float(loss0)) < 1e-5 * max(1.0, abs(float(loss0))) "
    "and np_loss(params1) < np_loss(params))("
    "lambda P0: (lambda P, O, D, T: (lambda t: (lambda out: (lambda alpha, col: "
    "float(np.mean((((alpha * np.concatenate([np.ones((3, 1)), np.cumprod(1 - alpha + 1e-10, axis=-1)[:, :-1]], -1))[..., None] * col).sum(1) - T) ** 2)))"
    "(1 - np.exp(-np.maximum(out[..., 3], 0) * np.append(np.diff(t), 1e10)), 1 / (1 + np.exp(-out[..., :3]))))"
    "(np.tanh((O[:, None, :] + D[:, None, :] * t[None, :, None]) @ P['w1'] + P['b1']) @ P['w2'] + P['b2']))"
    "(np.linspace(2.0, 6.0, 16)))"
    "(jax.tree_util.tree_map(lambda a: np.asarray(a, np.float64), P0), np.asarray(rays_o, np.float64), "
    "np.asarray(rays_d, np.float64), np.asarray(target, np.float64)))"
)
