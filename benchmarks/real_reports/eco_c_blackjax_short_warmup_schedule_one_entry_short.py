"""Running a short (15-step) sampler warmup with a Stan-style adaptation schedule that marks which steps belong to slow mass-matrix windows, scanning over the per-step keys and schedule flags together (blackjax window adaptation)."""

URL = "https://github.com/blackjax-devs/blackjax/issues/267"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''def build_schedule(num_steps):
    """For each warmup step: True if it lies in a slow (mass-matrix) window."""
    if num_steps < 20:
        # too short for windowed adaptation: only the step size is tuned
        return jnp.zeros(num_steps - 1, dtype=bool)
    n_init, n_final = int(0.15 * num_steps), int(0.1 * num_steps)
    flags = np.zeros(num_steps, dtype=bool)
    flags[n_init:num_steps - n_final] = True
    return jnp.asarray(flags)

def warmup(key, x0, num_steps):
    keys = jax.random.split(key, num_steps)
    slow = build_schedule(num_steps)
    def one_step(state, inp):
        step_key, is_slow = inp
        x, log_eps, n_slow = state
        eps = jnp.exp(log_eps)
        x = x + eps * jax.random.normal(step_key, x.shape)
        accept_prob = jnp.exp(-eps ** 2)          # acceptance proxy for a unit-scale target
        log_eps = log_eps + 0.5 * (accept_prob - 0.8)
        n_slow = n_slow + is_slow.astype(jnp.int32)
        return (x, log_eps, n_slow), log_eps
    init = (x0, jnp.float32(0.0), jnp.int32(0))
    return lax.scan(one_step, init, (keys, slow))

x0 = jnp.zeros(2)''',
    "(x, log_eps, n_slow), eps_trace = warmup(jax.random.key(0), x0, 15)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''def build_schedule(num_steps):
    """For each warmup step: True if it lies in a slow (mass-matrix) window."""
    if num_steps < 20:
        # too short for windowed adaptation: only the step size is tuned
        return jnp.zeros(num_steps, dtype=bool)
    n_init, n_final = int(0.15 * num_steps), int(0.1 * num_steps)
    flags = np.zeros(num_steps, dtype=bool)
    flags[n_init:num_steps - n_final] = True
    return jnp.asarray(flags)

def warmup(key, x0, num_steps):
    keys = jax.random.split(key, num_steps)
    slow = build_schedule(num_steps)
    def one_step(state, inp):
        step_key, is_slow = inp
        x, log_eps, n_slow = state
        eps = jnp.exp(log_eps)
        x = x + eps * jax.random.normal(step_key, x.shape)
        accept_prob = jnp.exp(-eps ** 2)          # acceptance proxy for a unit-scale target
        log_eps = log_eps + 0.5 * (accept_prob - 0.8)
        n_slow = n_slow + is_slow.astype(jnp.int32)
        return (x, log_eps, n_slow), log_eps
    init = (x0, jnp.float32(0.0), jnp.int32(0))
    return lax.scan(one_step, init, (keys, slow))

x0 = jnp.zeros(2)''',
    "(x, log_eps, n_slow), eps_trace = warmup(jax.random.key(0), x0, 15)",
)
CHECK = ("eps_trace.shape == (15,) and int(n_slow) == 0 and bool(jnp.all(jnp.isfinite(x)))"
         " and np.allclose(np.asarray(eps_trace), (lambda f: [f.append(f[-1] + 0.5 * (np.exp(-np.exp(2 * f[-1])) - 0.8)) for _ in range(15)] and f[1:])([0.0]), atol=1e-5)"
         " and int(warmup(jax.random.key(0), x0, 40)[0][2]) == 40 - 6 - 4")
