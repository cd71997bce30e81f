"""Summing the spectral power of a sampled signal inside a frequency band whose limits are static arguments of a jitted function, selecting the band's FFT bins with a boolean mask built from jnp.fft.rfftfreq."""

URL = "https://github.com/jax-ml/jax/issues/4471"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom functools import partial",
    '''dt = 0.01                                   # 100 Hz sampling
t = jnp.arange(100) * dt
signal = jnp.sin(2 * jnp.pi * 5.0 * t) + 0.5 * jnp.sin(2 * jnp.pi * 20.0 * t)

@partial(jax.jit, static_argnums=(1, 2))
def band_power(x, f_lo, f_hi):
    power = jnp.abs(jnp.fft.rfft(x)) ** 2
    freqs = jnp.fft.rfftfreq(x.shape[0], d=dt)
    in_band = (freqs >= f_lo) & (freqs < f_hi)   # depends only on static values
    return power[in_band].sum()''',
    "p_low = band_power(signal, 3.0, 8.0)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom functools import partial",
    '''dt = 0.01                                   # 100 Hz sampling
t = jnp.arange(100) * dt
signal = jnp.sin(2 * jnp.pi * 5.0 * t) + 0.5 * jnp.sin(2 * jnp.pi * 20.0 * t)

@partial(jax.jit, static_argnums=(1, 2))
def band_power(x, f_lo, f_hi):
    power = jnp.abs(jnp.fft.rfft(x)) ** 2
    freqs = np.fft.rfftfreq(x.shape[0], d=dt)   # NumPy: computed at trace time
    in_band = (freqs >= f_lo) & (freqs < f_hi)   # concrete boolean mask
    return power[in_band].sum()''',
    "p_low = band_power(signal, 3.0, 8.0)",
)
CHECK = "abs(float(p_low) - 2500.0) < 1.0"
