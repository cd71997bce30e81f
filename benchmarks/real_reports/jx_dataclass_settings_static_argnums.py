"""Passing a plain (mutable) dataclass of smoothing settings as a static argument to a jitted moving-average filter."""

URL = "https://github.com/jax-ml/jax/issues/3701"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nimport dataclasses, functools",
    '''@dataclasses.dataclass
class SmoothSettings:
    window: int
    gain: float

@functools.partial(jax.jit, static_argnums=1)
def smooth(signal, settings):
    kernel = jnp.ones(settings.window) / settings.window
    return settings.gain * jnp.convolve(signal, kernel, mode="valid")

signal = jnp.array([1.0, 4.0, 2.0, 8.0, 5.0, 7.0, 3.0])''',
    "out = smooth(signal, SmoothSettings(window=3, gain=2.0))",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nimport dataclasses, functools",
    '''@dataclasses.dataclass(frozen=True)
class SmoothSettings:
    window: int
    gain: float

@functools.partial(jax.jit, static_argnums=1)
def smooth(signal, settings):
    kernel = jnp.ones(settings.window) / settings.window
    return settings.gain * jnp.convolve(signal, kernel, mode="valid")

signal = jnp.array([1.0, 4.0, 2.0, 8.0, 5.0, 7.0, 3.0])''',
    "out = smooth(signal, SmoothSettings(window=3, gain=2.0))",
)
CHECK = ("out.shape == (5,) and np.allclose(np.asarray(out), "
         "2.0 * np.convolve([1.0, 4.0, 2.0, 8.0, 5.0, 7.0, 3.0], np.ones(3) / 3, mode='valid'), atol=1e-5)")
