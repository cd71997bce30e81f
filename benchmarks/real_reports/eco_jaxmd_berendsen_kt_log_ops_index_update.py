"""Recording the instantaneous temperature at every step of a small thermostatted harmonic-well simulation into a preallocated log inside lax.fori_loop, following an older jax-md NVT cookbook."""

URL = "https://github.com/jax-md/jax-md/issues/188"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax, ops",
    '''dt, tau, kT_target, steps = 0.05, 0.5, 0.3, 12

def md_step(pos, vel):
    # velocity Verlet in a unit harmonic well, then Berendsen velocity rescaling
    vel = vel - 0.5 * dt * pos
    pos = pos + dt * vel
    vel = vel - 0.5 * dt * pos
    kT = jnp.mean(vel ** 2)
    vel = vel * jnp.sqrt(1.0 + dt / tau * (kT_target / kT - 1.0))
    return pos, vel, kT

def step_fn(i, carry):
    pos, vel, log = carry
    pos, vel, kT = md_step(pos, vel)
    log['kT'] = ops.index_update(log['kT'], i, kT)
    return pos, vel, log

pos0 = jnp.array([0.4, -0.2, 0.9, -0.6])
vel0 = jnp.array([0.1, 0.5, -0.3, 0.2])
log = {'kT': jnp.zeros(steps)}''',
    "pos, vel, log = lax.fori_loop(0, steps, step_fn, (pos0, vel0, log))",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax, ops",
    '''dt, tau, kT_target, steps = 0.05, 0.5, 0.3, 12

def md_step(pos, vel):
    # velocity Verlet in a unit harmonic well, then Berendsen velocity rescaling
    vel = vel - 0.5 * dt * pos
    pos = pos + dt * vel
    vel = vel - 0.5 * dt * pos
    kT = jnp.mean(vel ** 2)
    vel = vel * jnp.sqrt(1.0 + dt / tau * (kT_target / kT - 1.0))
    return pos, vel, kT

def step_fn(i, carry):
    pos, vel, log = carry
    pos, vel, kT = md_step(pos, vel)
    log['kT'] = log['kT'].at[i].set(kT)
    return pos, vel, log

pos0 = jnp.array([0.4, -0.2, 0.9, -0.6])
vel0 = jnp.array([0.1, 0.5, -0.3, 0.2])
log = {'kT': jnp.zeros(steps)}''',
    "pos, vel, log = lax.fori_loop(0, steps, step_fn, (pos0, vel0, log))",
)
CHECK = ("(rp := np.array([0.4, -0.2, 0.9, -0.6]), rv := np.array([0.1, 0.5, -0.3, 0.2])) and "
         "np.allclose(np.asarray(log['kT']), [(rv := rv - 0.025 * rp, rp := rp + 0.05 * rv, rv := rv - 0.025 * rp, "
         "rk := np.mean(rv ** 2), rv := rv * np.sqrt(1.0 + 0.1 * (0.3 / rk - 1.0)))[3] for _ in range(12)], rtol=1e-5, atol=1e-7)")
