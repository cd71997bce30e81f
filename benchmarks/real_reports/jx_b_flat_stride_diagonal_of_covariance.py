"""Summing the per-feature variances of a small measurement table by reading the diagonal of its covariance matrix with NumPy's flat-stride idiom (C.flat[::n + 1])."""

URL = "https://github.com/jax-ml/jax/issues/8046"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''readings = jnp.array([[2.0, 1.0, 0.5],
                      [4.0, 0.0, 1.5],
                      [3.0, 2.0, 1.0],
                      [5.0, 1.0, 3.0],
                      [1.0, 3.0, 2.0]])
C = jnp.cov(readings, rowvar=False)
n = C.shape[0]''',
    '''variances = C.flat[::n + 1]
total_variance = variances.sum()''',
)
FIXED = (
    CELLS[0],
    CELLS[1],
    '''variances = C.ravel()[::n + 1]
total_variance = variances.sum()''',
)
CHECK = ("(lambda r: np.allclose(np.asarray(variances), r.var(axis=0, ddof=1), atol=1e-5) "
         "and np.isclose(float(total_variance), r.var(axis=0, ddof=1).sum(), atol=1e-4))"
         "(np.array([[2.0, 1.0, 0.5], [4.0, 0.0, 1.5], [3.0, 2.0, 1.0], [5.0, 1.0, 3.0], [1.0, 3.0, 2.0]]))")
