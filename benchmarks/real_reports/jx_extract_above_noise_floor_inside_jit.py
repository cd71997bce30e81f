"""Totalling the energy of the samples that rise above a noise floor inside a jitted function, picking those samples out with jnp.extract."""

URL = "https://github.com/jax-ml/jax/issues/38603"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''trace = jnp.array([0.05, 0.8, -1.3, 0.02, 0.6, -0.04, 2.1, 0.3])
floor = 0.25

@jax.jit
def loud_energy(signal):
    loud = jnp.extract(jnp.abs(signal) > floor, signal)
    return jnp.sum(loud ** 2)''',
    "energy = loud_energy(trace)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''trace = jnp.array([0.05, 0.8, -1.3, 0.02, 0.6, -0.04, 2.1, 0.3])
floor = 0.25

@jax.jit
def loud_energy(signal):
    loud = jnp.extract(jnp.abs(signal) > floor, signal,
                       size=signal.shape[0], fill_value=0.0)
    return jnp.sum(loud ** 2)''',
    "energy = loud_energy(trace)",
)
CHECK = "(lambda t: np.allclose(float(energy), np.sum(t[np.abs(t) > 0.25] ** 2), rtol=1e-5))(np.array([0.05, 0.8, -1.3, 0.02, 0.6, -0.04, 2.1, 0.3]))"
