"""Giving pure_callback a bare shape tuple instead of a ShapeDtypeStruct for the result."""

URL = "https://github.com/jax-ml/jax/issues/18074"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def host_sin(a):
    return np.sin(a).astype(a.dtype)

@jax.jit
def f(x):
    return jax.pure_callback(host_sin, x.shape, x)''',
    "y = f(jnp.array([0.0, 1.0, 2.0]))",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def host_sin(a):
    return np.sin(a).astype(a.dtype)

@jax.jit
def f(x):
    return jax.pure_callback(host_sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x)''',
    "y = f(jnp.array([0.0, 1.0, 2.0]))",
)
CHECK = "np.allclose(np.asarray(y), np.sin([0.0, 1.0, 2.0]), atol=1e-6)"
