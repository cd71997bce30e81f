"""Summarising a zero-padded sensor recording (mean and peak of the real samples) in a jitted function that first strips the padding with jnp.trim_zeros."""

URL = "https://github.com/jax-ml/jax/issues/38601"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''recording = jnp.array([0.0, 0.0, 3.5, 1.25, 4.0, 2.75, 0.0, 0.0, 0.0])

@jax.jit
def summarize(padded):
    samples = jnp.trim_zeros(padded)
    return samples.mean(), samples.max()''',
    "mean_level, peak = summarize(recording)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''recording = jnp.array([0.0, 0.0, 3.5, 1.25, 4.0, 2.75, 0.0, 0.0, 0.0])

@jax.jit
def summarize(samples):
    return samples.mean(), samples.max()''',
    "mean_level, peak = summarize(jnp.trim_zeros(recording))",
)
CHECK = "np.isclose(float(mean_level), np.mean([3.5, 1.25, 4.0, 2.75])) and np.isclose(float(peak), 4.0)"
