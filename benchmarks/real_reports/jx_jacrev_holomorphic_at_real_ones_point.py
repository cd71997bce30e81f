"""Taking the complex Jacobian of a discrete-Fourier-transform map with jacrev(holomorphic=True), evaluated at a vector of ones built with jnp.ones."""

URL = "https://github.com/jax-ml/jax/issues/3121"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''n = 4
k = jnp.arange(n)
dft = jnp.exp(-2j * jnp.pi * jnp.outer(k, k) / n)   # complex 4x4 transform matrix

def transform(v):
    return dft @ v

v0 = jnp.ones(n)''',
    "J = jax.jacrev(transform, holomorphic=True)(v0)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''n = 4
k = jnp.arange(n)
dft = jnp.exp(-2j * jnp.pi * jnp.outer(k, k) / n)   # complex 4x4 transform matrix

def transform(v):
    return dft @ v

v0 = jnp.ones(n, dtype=jnp.complex64)''',
    "J = jax.jacrev(transform, holomorphic=True)(v0)",
)
CHECK = "J.shape == (4, 4) and np.allclose(np.asarray(J), np.fft.fft(np.eye(4), axis=0), atol=1e-5)"
