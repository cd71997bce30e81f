"""Relaxing particle positions in a harmonic well with a hand-written FIRE minimizer driven by lax.scan."""

URL = "https://github.com/jax-md/jax-md/issues/99"
KIND = "fix"
CELLS = (
    'import jax, jax.numpy as jnp\nimport numpy as np\nfrom typing import NamedTuple',
    '''class FireState(NamedTuple):
    position: jax.Array
    velocity: jax.Array
    force: jax.Array
    dt: jax.Array
    alpha: jax.Array
    n_pos: jax.Array

# anisotropic harmonic well, minimum at R_MIN
stiffness = jnp.array([1.0, 2.5, 0.8])
R_MIN = jnp.array([0.3, -1.2, 2.0])

def energy_fn(R):
    return 0.5 * jnp.sum(stiffness * (R - R_MIN) ** 2)

force_fn = lambda R: -jax.grad(energy_fn)(R)

DT_START, DT_MAX, N_MIN, F_INC, F_DEC, ALPHA_START, F_ALPHA = 0.1, 0.4, 5, 1.1, 0.5, 0.1, 0.99

def fire_init(R):
    return FireState(R, jnp.zeros_like(R), force_fn(R),
                     jnp.asarray(DT_START, jnp.float32), jnp.asarray(ALPHA_START, jnp.float32),
                     jnp.zeros((), jnp.int32))

def fire_apply(state):
    R, V, F, dt, alpha, n_pos = state
    R = R + dt * V + 0.5 * dt ** 2 * F
    F_new = force_fn(R)
    V = V + 0.5 * dt * (F + F_new)
    P = jnp.sum(F_new * V)
    V = (1 - alpha) * V + alpha * F_new * jnp.linalg.norm(V) / (jnp.linalg.norm(F_new) + 1e-12)
    speed_up = (P >= 0) & (n_pos >= N_MIN)
    dt = jnp.where(speed_up, jnp.minimum(dt * F_INC, DT_MAX), dt)
    alpha = jnp.where(speed_up, alpha * F_ALPHA, alpha)
    dt = jnp.where(P < 0, dt * F_DEC, dt)
    alpha = jnp.where(P < 0, ALPHA_START, alpha)
    V = jnp.where(P < 0, jnp.zeros_like(V), V)
    n_pos = jnp.where(P >= 0, n_pos + 1.0, 0)
    return FireState(R, V, F_new, dt, alpha, n_pos)

def minimize(R_init, steps):
    def body(state, _):
        return fire_apply(state), None
    final, _ = jax.lax.scan(body, fire_init(R_init), None, length=steps)
    return final

R_start = jnp.array([1.5, 0.5, -0.5])''',
    'relaxed = minimize(R_start, 200)',
)
FIXED = (
    'import jax, jax.numpy as jnp\nimport numpy as np\nfrom typing import NamedTuple',
    '''class FireState(NamedTuple):
    position: jax.Array
    velocity: jax.Array
    force: jax.Array
    dt: jax.Array
    alpha: jax.Array
    n_pos: jax.Array

# anisotropic harmonic well, minimum at R_MIN
stiffness = jnp.array([1.0, 2.5, 0.8])
R_MIN = jnp.array([0.3, -1.2, 2.0])

def energy_fn(R):
    return 0.5 * jnp.sum(stiffness * (R - R_MIN) ** 2)

force_fn = lambda R: -jax.grad(energy_fn)(R)

DT_START, DT_MAX, N_MIN, F_INC, F_DEC, ALPHA_START, F_ALPHA = 0.1, 0.4, 5, 1.1, 0.5, 0.1, 0.99

def fire_init(R):
    return FireState(R, jnp.zeros_like(R), force_fn(R),
                     jnp.asarray(DT_START, jnp.float32), jnp.asarray(ALPHA_START, jnp.float32),
                     jnp.zeros((), jnp.int32))

def fire_apply(state):
    R, V, F, dt, alpha, n_pos = state
    R = R + dt * V + 0.5 * dt ** 2 * F
    F_new = force_fn(R)
    V = V + 0.5 * dt * (F + F_new)
    P = jnp.sum(F_new * V)
    V = (1 - alpha) * V + alpha * F_new * jnp.linalg.norm(V) / (jnp.linalg.norm(F_new) + 1e-12)
    speed_up = (P >= 0) & (n_pos >= N_MIN)
    dt = jnp.where(speed_up, jnp.minimum(dt * F_INC, DT_MAX), dt)
    alpha = jnp.where(speed_up, alpha * F_ALPHA, alpha)
    dt = jnp.where(P < 0, dt * F_DEC, dt)
    alpha = jnp.where(P < 0, ALPHA_START, alpha)
    V = jnp.where(P < 0, jnp.zeros_like(V), V)
    n_pos = jnp.where(P >= 0, n_pos + 1, 0)
    return FireState(R, V, F_new, dt, alpha, n_pos)

def minimize(R_init, steps):
    def body(state, _):
        return fire_apply(state), None
    final, _ = jax.lax.scan(body, fire_init(R_init), None, length=steps)
    return final

R_start = jnp.array([1.5, 0.5, -0.5])''',
    'relaxed = minimize(R_start, 200)',
)
CHECK = ("np.allclose(np.asarray(relaxed.position), np.array([0.3, -1.2, 2.0]), atol=1e-4) "
         "and abs(0.5 * float(np.sum(np.array([1.0, 2.5, 0.8]) * (np.asarray(relaxed.position) - np.array([0.3, -1.2, 2.0])) ** 2))) < 1e-8")
