"""Wrapping a NumPy (double-precision) simulator's log-likelihood for an exponential-decay model in jax.pure_callback so it can be called from jitted JAX code, declaring the callback's result as a float64 scalar like the host code computes it."""

URL = "https://github.com/AMICI-dev/AMICI/issues/2529"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''t_obs = np.array([0.0, 1.0, 2.0, 4.0])
y_obs = np.array([2.05, 1.18, 0.76, 0.29])
noise_sd = 0.1

def host_loglik(log10_theta):
    # runs on the host in float64, like an external ODE simulator would
    rate, amp = 10.0 ** np.asarray(log10_theta, dtype=np.float64)
    pred = amp * np.exp(-rate * t_obs)
    res = (y_obs - pred) / noise_sd
    return np.asarray(-0.5 * np.sum(res ** 2) - t_obs.size * np.log(np.sqrt(2 * np.pi) * noise_sd))

def jax_loglik(log10_theta):
    return jax.pure_callback(host_loglik, jax.ShapeDtypeStruct((), np.float64), log10_theta)

theta = jnp.array([np.log10(0.5), np.log10(2.0)])''',
    "llh = jax.jit(jax_loglik)(theta)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''t_obs = np.array([0.0, 1.0, 2.0, 4.0])
y_obs = np.array([2.05, 1.18, 0.76, 0.29])
noise_sd = 0.1

def host_loglik(log10_theta):
    # runs on the host in float64, like an external ODE simulator would
    rate, amp = 10.0 ** np.asarray(log10_theta, dtype=np.float64)
    pred = amp * np.exp(-rate * t_obs)
    res = (y_obs - pred) / noise_sd
    return np.asarray(-0.5 * np.sum(res ** 2) - t_obs.size * np.log(np.sqrt(2 * np.pi) * noise_sd), dtype=np.float32)

def jax_loglik(log10_theta):
    return jax.pure_callback(host_loglik, jax.ShapeDtypeStruct((), jnp.float32), log10_theta)

theta = jnp.array([np.log10(0.5), np.log10(2.0)])''',
    "llh = jax.jit(jax_loglik)(theta)",
)
CHECK = "llh.dtype == jnp.float32 and llh.shape == () and np.isclose(float(llh), -0.5 * np.sum(((np.array([2.05, 1.18, 0.76, 0.29]) - 2.0 * np.exp(-0.5 * np.array([0.0, 1.0, 2.0, 4.0]))) / 0.1) ** 2) - 4 * np.log(np.sqrt(2 * np.pi) * 0.1), rtol=1e-4, atol=1e-4)"
