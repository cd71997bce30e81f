"""Gathering a fixed five-sample window centred on the peak of a signal inside a jitted function by building the indices with jnp.arange from the traced peak position."""

URL = "https://github.com/jax-ml/jax/issues/19433"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''@jax.jit
def peak_window(signal):
    peak = jnp.argmax(signal)
    idx = jnp.arange(peak - 2, peak + 3)
    return signal[idx]

signal = jnp.array([0.1, 0.3, 0.2, 0.9, 2.5, 1.1, 0.4, 0.0, 0.2])''',
    "window = peak_window(signal)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''@jax.jit
def peak_window(signal):
    peak = jnp.argmax(signal)
    idx = jnp.arange(-2, 3) + peak
    return signal[idx]

signal = jnp.array([0.1, 0.3, 0.2, 0.9, 2.5, 1.1, 0.4, 0.0, 0.2])''',
    "window = peak_window(signal)",
)
CHECK = ("window.shape == (5,) and np.allclose(np.asarray(window), "
         "np.array([0.1, 0.3, 0.2, 0.9, 2.5, 1.1, 0.4, 0.0, 0.2])[2:7])")
