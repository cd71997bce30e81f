"""Fitting a straight line to each group of observations with jax.scipy.optimize.minimize (BFGS) vectorised by vmap, handing the group's data to the loss through minimize's extra-arguments slot."""

URL = "https://github.com/jax-ml/jax/issues/5732"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''from jax.scipy.optimize import minimize

design = jnp.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0], [1.0, 3.0]])

def sq_loss(coef, obs):
    resid = design @ coef - obs
    return jnp.sum(resid ** 2)

def fit_one(obs):
    start = jnp.zeros(2)
    return minimize(sq_loss, start, obs, method="BFGS").x

groups = jnp.array([[1.0, 3.0, 5.0, 7.0],
                    [4.0, 3.0, 2.0, 1.0],
                    [1.0, 1.5, 2.5, 2.0]])''',
    "coefs = jax.vmap(fit_one)(groups)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''from jax.scipy.optimize import minimize

design = jnp.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0], [1.0, 3.0]])

def sq_loss(coef, obs):
    resid = design @ coef - obs
    return jnp.sum(resid ** 2)

def fit_one(obs):
    start = jnp.zeros(2)
    return minimize(sq_loss, start, (obs,), method="BFGS").x

groups = jnp.array([[1.0, 3.0, 5.0, 7.0],
                    [4.0, 3.0, 2.0, 1.0],
                    [1.0, 1.5, 2.5, 2.0]])''',
    "coefs = jax.vmap(fit_one)(groups)",
)
CHECK = "coefs.shape == (3, 2) and np.allclose(np.asarray(coefs), np.linalg.lstsq(np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0], [1.0, 3.0]]), np.array([[1.0, 3.0, 5.0, 7.0], [4.0, 3.0, 2.0, 1.0], [1.0, 1.5, 2.5, 2.0]]).T, rcond=None)[0].T, atol=1e-3)"
