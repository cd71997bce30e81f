"""Jitting a trajectory-optimisation helper that rolls out controls and sums a discounted stage cost, decorated with a static_argnums tuple kept from an older signature that had one more parameter."""

URL = "https://github.com/google/trajax/issues/17"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom functools import partial",
    '''def stage_cost(x, u):
    return jnp.sum(x ** 2) + 0.1 * jnp.sum(u ** 2)

x_init = jnp.array([1.0, -0.5])
controls = jnp.array([[0.2, 0.1], [-0.3, 0.4], [0.0, -0.2], [0.5, 0.5]])''',
    '''@partial(jax.jit, static_argnums=(0, 6))
def rollout_cost(cost, x0, U, dt, terminal_weight, discount):
    def step(x, u_t):
        return x + dt * u_t, cost(x, u_t)
    x_final, stage = jax.lax.scan(step, x0, U)
    weights = discount ** jnp.arange(U.shape[0])
    return jnp.sum(weights * stage) + terminal_weight * jnp.sum(x_final ** 2)

total = rollout_cost(stage_cost, x_init, controls, 0.1, 5.0, 0.9)''',
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom functools import partial",
    '''def stage_cost(x, u):
    return jnp.sum(x ** 2) + 0.1 * jnp.sum(u ** 2)

x_init = jnp.array([1.0, -0.5])
controls = jnp.array([[0.2, 0.1], [-0.3, 0.4], [0.0, -0.2], [0.5, 0.5]])''',
    '''@partial(jax.jit, static_argnums=(0,))
def rollout_cost(cost, x0, U, dt, terminal_weight, discount):
    def step(x, u_t):
        return x + dt * u_t, cost(x, u_t)
    x_final, stage = jax.lax.scan(step, x0, U)
    weights = discount ** jnp.arange(U.shape[0])
    return jnp.sum(weights * stage) + terminal_weight * jnp.sum(x_final ** 2)

total = rollout_cost(stage_cost, x_init, controls, 0.1, 5.0, 0.9)''',
)
CHECK = ("(lambda U: (lambda xs: np.isclose(float(total), "
         "sum(0.9 ** t * (np.sum(xs[t] ** 2) + 0.1 * np.sum(U[t] ** 2)) for t in range(4)) + 5.0 * np.sum(xs[4] ** 2), rtol=1e-5))"
         "(np.cumsum(np.vstack([[1.0, -0.5], 0.1 * U]), axis=0)))"
         "(np.array([[0.2, 0.1], [-0.3, 0.4], [0.0, -0.2], [0.5, 0.5]]))")
