"""Differentiating the complex frequency response of a first-order low-pass filter with respect to the (real) angular frequency."""

URL = "https://github.com/jax-ml/jax/issues/22948"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''tau = 0.8

def response(omega):
    return 1.0 / (1.0 + 1j * omega * tau)

omega0 = 1.5''',
    "d_response = jax.grad(response)(omega0)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''tau = 0.8

def response(omega):
    return 1.0 / (1.0 + 1j * omega * tau)

omega0 = 1.5''',
    "d_response = jax.jacfwd(response)(omega0)",
)
CHECK = "np.iscomplexobj(np.asarray(d_response)) and np.allclose(complex(d_response), -1j * 0.8 / (1.0 + 1j * 1.5 * 0.8) ** 2, atol=1e-5)"
