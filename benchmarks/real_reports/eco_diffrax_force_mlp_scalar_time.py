"""Integrating a forced oscillator whose external force is a small MLP fed the scalar time directly."""

URL = "https://github.com/patrick-kidger/diffrax/issues/446"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    """params = {
    "w_in": jnp.full((1, 4), 0.5),
    "b_in": jnp.zeros(4),
    "w_out": jnp.full((4, 1), 0.25),
}

def force(params, t):
    h = jnp.tanh(t @ params["w_in"] + params["b_in"])
    return (h @ params["w_out"])[0]

def vector_field(t, y, params):
    pos, vel = y[0], y[1]
    return jnp.stack([vel, -pos + force(params, t)])

def euler_solve(f, y0, t0, t1, n, params):
    dt = (t1 - t0) / n
    def body(y, i):
        t = t0 + i * dt
        return y + dt * f(t, y, params), None
    y, _ = jax.lax.scan(body, y0, jnp.arange(n))
    return y""",
    "y1 = euler_solve(vector_field, jnp.array([1.0, 0.0]), 0.0, 1.0, 10, params)",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """params = {
    "w_in": jnp.full((1, 4), 0.5),
    "b_in": jnp.zeros(4),
    "w_out": jnp.full((4, 1), 0.25),
}

def force(params, t):
    t = jnp.atleast_1d(t)
    h = jnp.tanh(t @ params["w_in"] + params["b_in"])
    return (h @ params["w_out"])[0]

def vector_field(t, y, params):
    pos, vel = y[0], y[1]
    return jnp.stack([vel, -pos + force(params, t)])

def euler_solve(f, y0, t0, t1, n, params):
    dt = (t1 - t0) / n
    def body(y, i):
        t = t0 + i * dt
        return y + dt * f(t, y, params), None
    y, _ = jax.lax.scan(body, y0, jnp.arange(n))
    return y""",
    "y1 = euler_solve(vector_field, jnp.array([1.0, 0.0]), 0.0, 1.0, 10, params)",
)
CHECK = "abs(float(y1[0]) - 0.6283840) < 1e-5 and abs(float(y1[1]) + 0.6757483) < 1e-5"
