"""Solving a batch of cube-root equations in half precision with a hand-written, optimistix-style Newton while_loop whose step-size statistic starts as a float32 infinity."""

URL = "https://github.com/patrick-kidger/optimistix/issues/155"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''targets = jnp.array([2.0, 5.0, 10.0, 27.0], dtype=jnp.float16)

def residual(y):
    # evaluated in float32, but the problem itself is kept in float16
    return (y.astype(jnp.float32) ** 3 - targets.astype(jnp.float32)).astype(jnp.float16)

def newton_root(fn, y0, rtol=1e-3, atol=1e-3, max_steps=30):
    def cond(state):
        y, diffsize, step = state
        return (diffsize > 1.0) & (step < max_steps)
    def body(state):
        y, _, step = state
        f = fn(y)
        J = 3.0 * y.astype(jnp.float32) ** 2
        dy = (f.astype(jnp.float32) / J).astype(y.dtype)
        diffsize = jnp.max(jnp.abs(dy) / (atol + rtol * jnp.abs(y)))
        return y - dy, diffsize, step + 1
    init = (y0, jnp.float32(jnp.inf), 0)
    y, diffsize, steps = lax.while_loop(cond, body, init)
    return y, steps

y0 = jnp.array([1.0, 2.0, 2.0, 3.5], dtype=jnp.float16)''',
    "root, steps = jax.jit(newton_root, static_argnums=0)(residual, y0)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''targets = jnp.array([2.0, 5.0, 10.0, 27.0], dtype=jnp.float16)

def residual(y):
    # evaluated in float32, but the problem itself is kept in float16
    return (y.astype(jnp.float32) ** 3 - targets.astype(jnp.float32)).astype(jnp.float16)

def newton_root(fn, y0, rtol=1e-3, atol=1e-3, max_steps=30):
    def cond(state):
        y, diffsize, step = state
        return (diffsize > 1.0) & (step < max_steps)
    def body(state):
        y, _, step = state
        f = fn(y)
        J = 3.0 * y.astype(jnp.float32) ** 2
        dy = (f.astype(jnp.float32) / J).astype(y.dtype)
        diffsize = jnp.max(jnp.abs(dy) / (atol + rtol * jnp.abs(y)))
        return y - dy, diffsize, step + 1
    init = (y0, jnp.asarray(jnp.inf, dtype=y0.dtype), 0)
    y, diffsize, steps = lax.while_loop(cond, body, init)
    return y, steps

y0 = jnp.array([1.0, 2.0, 2.0, 3.5], dtype=jnp.float16)''',
    "root, steps = jax.jit(newton_root, static_argnums=0)(residual, y0)",
)
CHECK = ("root.dtype == jnp.float16 and np.allclose(np.asarray(root, dtype=np.float64), np.cbrt([2.0, 5.0, 10.0, 27.0]), rtol=2e-3)"
         " and 1 <= int(steps) < 30")
