"""Bounding the early-time power-law index of a halo mass-accretion model with jnp.clip, written with NumPy-era keyword names."""

URL = "https://github.com/ArgonneCPAC/diffmah/issues/130"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def early_index(raw_index, lo=0.1, hi=5.0):
    return jnp.clip(raw_index, a_min=lo, a_max=hi)

def log_mass_history(t, logm0, raw_index, t0=13.8):
    alpha = early_index(raw_index)
    return logm0 + alpha * jnp.log10(t / t0)

times = jnp.array([1.0, 3.0, 6.0, 13.8])
raw = jnp.array([-0.5, 2.5, 7.0])''',
    "histories = jax.vmap(lambda a: log_mass_history(times, 12.0, a))(raw)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def early_index(raw_index, lo=0.1, hi=5.0):
    return jnp.clip(raw_index, min=lo, max=hi)

def log_mass_history(t, logm0, raw_index, t0=13.8):
    alpha = early_index(raw_index)
    return logm0 + alpha * jnp.log10(t / t0)

times = jnp.array([1.0, 3.0, 6.0, 13.8])
raw = jnp.array([-0.5, 2.5, 7.0])''',
    "histories = jax.vmap(lambda a: log_mass_history(times, 12.0, a))(raw)",
)
CHECK = ("histories.shape == (3, 4) and np.allclose(np.asarray(histories), "
         "12.0 + np.array([0.1, 2.5, 5.0])[:, None] * np.log10(np.array([1.0, 3.0, 6.0, 13.8]) / 13.8)[None, :], atol=1e-4)")
