"""Jitting a logistic-growth simulation built on a small diffrax-style solver, passing the solver's step budget as an argument of the jitted function."""

URL = "https://github.com/patrick-kidger/diffrax/issues/379"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nimport functools",
    '''def diffeqsolve(vector_field, y0, t0, t1, dt0, args=None, max_steps=4096):
    """Fixed-step Heun solver in the spirit of diffrax: saves (t, y) after every step
    into buffers of length max_steps (unused slots stay at inf)."""
    if max_steps is None or max_steps < 1:
        raise ValueError("max_steps must be a positive integer")
    t0 = jnp.asarray(t0, dtype=jnp.float32)
    ts = jnp.full((max_steps,), jnp.inf)
    ys = jnp.full((max_steps,) + y0.shape, jnp.inf)

    def cond(carry):
        t, y, n, ts, ys = carry
        return (t < t1) & (n < max_steps)

    def body(carry):
        t, y, n, ts, ys = carry
        dt = jnp.minimum(dt0, t1 - t)
        k1 = vector_field(t, y, args)
        k2 = vector_field(t + dt, y + dt * k1, args)
        y = y + 0.5 * dt * (k1 + k2)
        t = t + dt
        return t, y, n + 1, ts.at[n].set(t), ys.at[n].set(y)

    _, _, n, ts, ys = jax.lax.while_loop(cond, body, (t0, y0, jnp.int32(0), ts, ys))
    return ts, ys, n

def logistic(t, y, args):
    r, K = args
    return r * y * (1 - y / K)

@jax.jit
def simulate(y0, r, K, max_steps):
    return diffeqsolve(logistic, y0, 0.0, 5.0, 0.125, args=(r, K), max_steps=max_steps)

y0 = jnp.array([0.1, 0.5, 1.5])''',
    "ts, ys, n_steps = simulate(y0, 1.2, 2.0, 64)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nimport functools",
    '''def diffeqsolve(vector_field, y0, t0, t1, dt0, args=None, max_steps=4096):
    """Fixed-step Heun solver in the spirit of diffrax: saves (t, y) after every step
    into buffers of length max_steps (unused slots stay at inf)."""
    if max_steps is None or max_steps < 1:
        raise ValueError("max_steps must be a positive integer")
    t0 = jnp.asarray(t0, dtype=jnp.float32)
    ts = jnp.full((max_steps,), jnp.inf)
    ys = jnp.full((max_steps,) + y0.shape, jnp.inf)

    def cond(carry):
        t, y, n, ts, ys = carry
        return (t < t1) & (n < max_steps)

    def body(carry):
        t, y, n, ts, ys = carry
        dt = jnp.minimum(dt0, t1 - t)
        k1 = vector_field(t, y, args)
        k2 = vector_field(t + dt, y + dt * k1, args)
        y = y + 0.5 * dt * (k1 + k2)
        t = t + dt
        return t, y, n + 1, ts.at[n].set(t), ys.at[n].set(y)

    _, _, n, ts, ys = jax.lax.while_loop(cond, body, (t0, y0, jnp.int32(0), ts, ys))
    return ts, ys, n

def logistic(t, y, args):
    r, K = args
    return r * y * (1 - y / K)

@functools.partial(jax.jit, static_argnames="max_steps")
def simulate(y0, r, K, max_steps):
    return diffeqsolve(logistic, y0, 0.0, 5.0, 0.125, args=(r, K), max_steps=max_steps)

y0 = jnp.array([0.1, 0.5, 1.5])''',
    "ts, ys, n_steps = simulate(y0, 1.2, 2.0, 64)",
)
CHECK = ("(lambda ref: int(n_steps) == 40 and ts.shape == (64,) and ys.shape == (64, 3) "
         "and np.allclose(np.asarray(ts[:40]), 0.125 * np.arange(1, 41)) "
         "and bool(np.all(np.isinf(np.asarray(ys[40:])))) "
         "and np.allclose(np.asarray(ys[:40]), ref, rtol=1e-4, atol=1e-5))"
         "(np.array(list(__import__('itertools').accumulate(range(40), "
         "lambda y, _: (lambda k1: y + 0.0625 * (k1 + 1.2 * (y + 0.125 * k1) * (1 - (y + 0.125 * k1) / 2.0)))"
         "(1.2 * y * (1 - y / 2.0)), initial=np.array([0.1, 0.5, 1.5]))))[1:])")
