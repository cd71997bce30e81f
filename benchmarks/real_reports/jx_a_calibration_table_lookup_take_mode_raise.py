"""Converting raw detector bin codes into calibrated energies by looking them up in a calibration table with jnp.take, keeping NumPy's mode='raise' from the original code to guard against bad codes."""

URL = "https://github.com/jax-ml/jax/issues/10333"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''# calibrated energy (keV) of each of the 6 bins
calib = jnp.array([0.0, 12.5, 26.0, 40.5, 56.0, 72.5])
codes = jnp.array([[1, 3, 3, 5],
                   [0, 2, 4, 1]])

def to_energy(codes):
    return jnp.take(calib, codes, axis=0, mode='raise')''',
    "energies = to_energy(codes)\nspectrum_total = energies.sum(axis=1)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''# calibrated energy (keV) of each of the 6 bins
calib = jnp.array([0.0, 12.5, 26.0, 40.5, 56.0, 72.5])
codes = jnp.array([[1, 3, 3, 5],
                   [0, 2, 4, 1]])

def to_energy(codes):
    # JAX cannot raise on out-of-range indices; the default mode fills them with NaN instead
    return jnp.take(calib, codes, axis=0)''',
    "energies = to_energy(codes)\nspectrum_total = energies.sum(axis=1)",
)
CHECK = ("np.allclose(np.asarray(energies), np.take(np.array([0.0, 12.5, 26.0, 40.5, 56.0, 72.5]), "
         "np.array([[1, 3, 3, 5], [0, 2, 4, 1]]), axis=0)) and np.allclose(np.asarray(spectrum_total), [166.0, 94.5])")
