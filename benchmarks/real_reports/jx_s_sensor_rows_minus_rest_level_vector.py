"""Removing each sensor's resting baseline (mean of its first two samples) from a sensors-by-time matrix of readings."""

URL = "https://github.com/jax-ml/jax/issues/12305"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''# rows: 3 sensors, columns: 5 time samples
readings = jnp.array([[1.0, 1.2, 3.0, 4.1, 2.2],
                      [0.5, 0.7, 0.9, 2.5, 1.0],
                      [2.0, 2.2, 2.1, 5.0, 3.3]])
baseline = readings[:, :2].mean(axis=1)   # one value per sensor''',
    "corrected = readings - baseline\npeak_rise = corrected.max(axis=1)",
)
FIXED = (
    CELLS[0],
    CELLS[1],
    "corrected = readings - baseline[:, None]\npeak_rise = corrected.max(axis=1)",
)
CHECK = "corrected.shape == (3, 5) and np.allclose(np.asarray(peak_rise), [4.1 - 1.1, 2.5 - 0.6, 5.0 - 2.1], atol=1e-5)"
