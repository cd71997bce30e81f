"""Differentiating a scalar Huber loss whose quadratic/linear branch is picked by a Python if on float() of the residual, evaluating the slope at a small and a large residual."""

URL = "https://github.com/jax-ml/jax/issues/2783"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''DELTA = 1.0

def huber(r):
    if abs(float(r)) <= DELTA:
        return 0.5 * r ** 2
    return DELTA * (jnp.abs(r) - 0.5 * DELTA)

slope = jax.grad(huber)''',
    "g_small, g_large, g_neg = slope(0.5), slope(3.0), slope(-2.0)",
)
FIXED = (
    CELLS[0],
    '''DELTA = 1.0

def huber(r):
    if abs(r) <= DELTA:
        return 0.5 * r ** 2
    return DELTA * (jnp.abs(r) - 0.5 * DELTA)

slope = jax.grad(huber)''',
    CELLS[2],
)
CHECK = "np.isclose(float(g_small), 0.5) and np.isclose(float(g_large), 1.0) and np.isclose(float(g_neg), -1.0)"
