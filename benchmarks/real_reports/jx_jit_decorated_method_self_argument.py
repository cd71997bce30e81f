"""Calibrating raw sensor readings with a method of a small calibration class, decorating the method directly with @jax.jit."""

URL = "https://github.com/jax-ml/jax/issues/5595"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom functools import partial",
    '''class Thermometer:
    def __init__(self, offset, gain):
        self.offset = offset
        self.gain = gain

    @jax.jit
    def calibrate(self, raw):
        return (raw - self.offset) * self.gain

sensor = Thermometer(0.5, 2.0)
raw = jnp.array([1.0, 2.0, 3.5])''',
    "calibrated = sensor.calibrate(raw)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom functools import partial",
    '''class Thermometer:
    def __init__(self, offset, gain):
        self.offset = offset
        self.gain = gain

    @partial(jax.jit, static_argnums=0)
    def calibrate(self, raw):
        return (raw - self.offset) * self.gain

sensor = Thermometer(0.5, 2.0)
raw = jnp.array([1.0, 2.0, 3.5])''',
    "calibrated = sensor.calibrate(raw)",
)
CHECK = "np.allclose(np.asarray(calibrated), (np.array([1.0, 2.0, 3.5]) - 0.5) * 2.0)"
