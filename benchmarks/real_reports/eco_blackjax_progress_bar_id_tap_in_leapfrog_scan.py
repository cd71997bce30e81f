"""Adding a blackjax-style progress bar to a lax.scan over leapfrog steps of a harmonic oscillator, reporting every 20 iterations from inside the scan."""

URL = "https://github.com/blackjax-devs/blackjax/issues/562"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''step_size = 0.1

def leapfrog_step(state, i):
    q, p = state
    p = p - 0.5 * step_size * q
    q = q + step_size * p
    p = p - 0.5 * step_size * q
    return (q, p), q

q0, p0 = jnp.array(1.0), jnp.array(0.0)''',
    '''from jax.experimental import host_callback

progress = []

def with_progress(step_fn, every):
    def wrapped(state, i):
        jax.lax.cond(i % every == 0,
                     lambda: host_callback.id_tap(lambda it, _: progress.append(int(it)), i),
                     lambda: i)
        return step_fn(state, i)
    return wrapped

(q_final, p_final), qs = jax.lax.scan(with_progress(leapfrog_step, 20), (q0, p0), jnp.arange(100))''',
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''step_size = 0.1

def leapfrog_step(state, i):
    q, p = state
    p = p - 0.5 * step_size * q
    q = q + step_size * p
    p = p - 0.5 * step_size * q
    return (q, p), q

q0, p0 = jnp.array(1.0), jnp.array(0.0)''',
    '''progress = []

def with_progress(step_fn, every):
    def wrapped(state, i):
        jax.lax.cond(i % every == 0,
                     lambda: jax.debug.callback(lambda it: progress.append(int(it)), i, ordered=True),
                     lambda: None)
        return step_fn(state, i)
    return wrapped

(q_final, p_final), qs = jax.lax.scan(with_progress(leapfrog_step, 20), (q0, p0), jnp.arange(100))
jax.effects_barrier()''',
)
CHECK = ("progress == [0, 20, 40, 60, 80] and np.allclose([float(q_final), float(p_final)], "
         "np.linalg.matrix_power(np.array([[1 - 0.1**2 / 2, 0.1], [-0.1 * (1 - 0.1**2 / 4), 1 - 0.1**2 / 2]]), 100) @ np.array([1.0, 0.0]), atol=1e-4)")
