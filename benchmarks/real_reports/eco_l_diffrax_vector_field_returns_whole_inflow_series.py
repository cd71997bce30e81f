"""Porting a scan-based model of a tank's level driven by measured inflow and outflow-rate series to a diffrax-style ODE solve, passing the two series through the solver's args."""

URL = "https://github.com/patrick-kidger/diffrax/issues/271"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def heun_solve(vector_field, t0, t1, dt, y0, args):
    """Tiny stand-in for diffeqsolve with a two-stage explicit Runge-Kutta (Heun) solver.
    Like diffrax, it stores each stage's derivative in a buffer shaped like y."""
    n_steps = int(round((t1 - t0) / dt))
    y0 = jnp.asarray(y0, dtype=jnp.float32)

    def step(carry, _):
        t, y = carry
        ks = jnp.zeros((2,) + y.shape, y.dtype)
        ks = ks.at[0].set(vector_field(t, y, args))
        ks = ks.at[1].set(vector_field(t + dt, y + dt * ks[0], args))
        y_next = y + 0.5 * dt * (ks[0] + ks[1])
        return (t + dt, y_next), y_next

    _, ys = jax.lax.scan(step, (jnp.asarray(t0, jnp.float32), y0), None, length=n_steps)
    return ys

# hourly measurements: inflow (m^3/h) and outflow coefficient (1/h)
inflow = jnp.array([2.0, 2.5, 3.0, 2.0, 1.0, 0.5, 1.5, 2.0, 2.5])
outflow_rate = jnp.array([0.2, 0.2, 0.3, 0.3, 0.4, 0.4, 0.3, 0.2, 0.2])
ts = jnp.arange(inflow.shape[0], dtype=jnp.float32)

def tank(t, y, args):
    q_in, k_out, area = args
    return (q_in - k_out * y) / area

args = (inflow, outflow_rate, 1.5)''',
    "levels = heun_solve(tank, 0.0, float(ts[-1]), 0.5, 4.0, args)",
)
FIXED = (
    CELLS[0],
    CELLS[1].replace('''    q_in, k_out, area = args
    return (q_in - k_out * y) / area''', '''    q_in, k_out, area = args
    q_t = jnp.interp(t, ts, q_in)      # value of each measured series at time t
    k_t = jnp.interp(t, ts, k_out)
    return (q_t - k_t * y) / area'''),
    CELLS[2],
)
CHECK = """(lambda q, k, T: (lambda f: (lambda ys: levels.shape == (16,) and np.allclose(np.asarray(levels), ys, rtol=1e-4, atol=1e-4))(
    __import__('functools').reduce(lambda acc, i: acc + [(lambda t, y: (lambda k0: y + 0.25 * (k0 + f(t + 0.5, y + 0.5 * k0)))(f(t, y)))(0.5 * i, acc[-1])],
                                   range(16), [4.0])[1:]))(
    lambda t, y: (np.interp(t, T, q) - np.interp(t, T, k) * y) / 1.5))(
    np.array([2.0, 2.5, 3.0, 2.0, 1.0, 0.5, 1.5, 2.0, 2.5]), np.array([0.2, 0.2, 0.3, 0.3, 0.4, 0.4, 0.3, 0.2, 0.2]), np.arange(9.0))"""
