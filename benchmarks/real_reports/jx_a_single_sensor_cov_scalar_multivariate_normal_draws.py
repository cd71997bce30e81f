"""Fitting a Gaussian to logged sensor readings (rows = sensors, columns = time steps) with jnp.mean and jnp.cov, then drawing synthetic readings with jax.random.multivariate_normal, for a configuration that logs a single sensor."""

URL = "https://github.com/jax-ml/jax/issues/25951"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''# one sensor, 8 time steps
readings = jnp.array([[20.1, 20.4, 19.8, 20.9, 21.3, 20.7, 20.2, 19.9]])

def fit_gaussian(obs):
    mu = jnp.mean(obs, axis=1)
    cov = jnp.cov(obs)
    return mu, cov

mu, cov = fit_gaussian(readings)
key = jax.random.key(0)''',
    "synthetic = jax.random.multivariate_normal(key, mu, cov, shape=(5,))",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''# one sensor, 8 time steps
readings = jnp.array([[20.1, 20.4, 19.8, 20.9, 21.3, 20.7, 20.2, 19.9]])

def fit_gaussian(obs):
    mu = jnp.mean(obs, axis=1)
    # jnp.cov (like np.cov) returns a 0-d array for a single variable; keep it (n, n)
    cov = jnp.atleast_2d(jnp.cov(obs))
    return mu, cov

mu, cov = fit_gaussian(readings)
key = jax.random.key(0)''',
    "synthetic = jax.random.multivariate_normal(key, mu, cov, shape=(5,))",
)
CHECK = ("cov.shape == (1, 1) and synthetic.shape == (5, 1) and bool(np.all(np.isfinite(np.asarray(synthetic)))) and "
         "np.allclose(np.asarray(mu), [np.mean([20.1, 20.4, 19.8, 20.9, 21.3, 20.7, 20.2, 19.9])], rtol=1e-6) and "
         "np.allclose(np.asarray(cov), [[np.var([20.1, 20.4, 19.8, 20.9, 21.3, 20.7, 20.2, 19.9], ddof=1)]], rtol=1e-4) and "
         "bool(np.all(np.abs(np.asarray(synthetic) - np.mean([20.1, 20.4, 19.8, 20.9, 21.3, 20.7, 20.2, 19.9])) "
         "< 6 * np.std([20.1, 20.4, 19.8, 20.9, 21.3, 20.7, 20.2, 19.9], ddof=1)))")
