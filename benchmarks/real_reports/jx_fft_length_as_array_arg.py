"""Passing the FFT length as a JAX array argument to a jitted zero-padded fft wrapper."""

URL = "https://github.com/jax-ml/jax/issues/15386"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def padded_fft(a, n):
    return jnp.fft.fft(a, n)

a = jnp.arange(4.0)
n = jnp.array(8)''',
    "spec = jax.jit(padded_fft)(a, n)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def padded_fft(a, n):
    return jnp.fft.fft(a, n)

a = jnp.arange(4.0)
n = 8''',
    "spec = jax.jit(padded_fft, static_argnums=1)(a, n)",
)
CHECK = "spec.shape == (8,) and np.allclose(np.asarray(spec), np.fft.fft(np.arange(4.0), 8), atol=1e-4)"
