"""Fitting a through-the-origin slope with jnp.linalg.lstsq inside a jitted function and turning the one-element coefficient array into a scalar with .item() before predicting new points."""

URL = "https://github.com/jax-ml/jax/issues/8962"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''@jax.jit
def fit_and_predict(x, y, x_new):
    coef, _, _, _ = jnp.linalg.lstsq(x[:, None], y)
    slope = coef.item()
    return slope, slope * x_new

x = jnp.array([1.0, 2.0, 3.0, 4.0])
y = jnp.array([2.1, 3.9, 6.2, 7.8])
x_new = jnp.array([5.0, 6.0])''',
    "slope, pred = fit_and_predict(x, y, x_new)",
)
FIXED = (
    CELLS[0],
    '''@jax.jit
def fit_and_predict(x, y, x_new):
    coef, _, _, _ = jnp.linalg.lstsq(x[:, None], y)
    slope = coef[0]
    return slope, slope * x_new

x = jnp.array([1.0, 2.0, 3.0, 4.0])
y = jnp.array([2.1, 3.9, 6.2, 7.8])
x_new = jnp.array([5.0, 6.0])''',
    CELLS[2],
)
CHECK = ("np.shape(slope) == () and np.isclose(float(slope), (2.1 + 7.8 + 18.6 + 31.2) / 30.0, atol=1e-4) "
         "and np.allclose(np.asarray(pred), np.array([5.0, 6.0]) * (2.1 + 7.8 + 18.6 + 31.2) / 30.0, atol=1e-3)")
