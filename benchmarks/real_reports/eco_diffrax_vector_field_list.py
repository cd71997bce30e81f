"""Solving an oscillator with a hand-written Euler scan whose generated right-hand side returns a Python list."""

URL = "https://github.com/patrick-kidger/diffrax/issues/719"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    """def rhs(t, y, args):
    x, v = y[0], y[1]
    return [v, -args["k"] * x]

def solve(rhs, y0, dt, n, args):
    def step(y, i):
        dy = rhs(i * dt, y, args)
        y_new = jax.tree_util.tree_map(lambda f, yi: yi + dt * f, dy, y)
        return y_new, None
    y, _ = jax.lax.scan(step, y0, jnp.arange(n))
    return y""",
    "y1 = solve(rhs, jnp.array([1.0, 0.0]), 0.1, 10, {'k': 4.0})",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """def rhs(t, y, args):
    x, v = y[0], y[1]
    return jnp.stack([v, -args["k"] * x])

def solve(rhs, y0, dt, n, args):
    def step(y, i):
        dy = rhs(i * dt, y, args)
        y_new = jax.tree_util.tree_map(lambda f, yi: yi + dt * f, dy, y)
        return y_new, None
    y, _ = jax.lax.scan(step, y0, jnp.arange(n))
    return y""",
    "y1 = solve(rhs, jnp.array([1.0, 0.0]), 0.1, 10, {'k': 4.0})",
)
CHECK = "abs(float(y1[0]) + 0.4773249) < 1e-5 and abs(float(y1[1]) + 2.2382182) < 1e-5"
