"""Solving Kepler's equation E = M + e*sin(E) for the eccentric anomaly by fixed-point iteration in lax.while_loop, stopping once successive iterates agree, with the stop test written using Python's `not` around jnp.allclose."""

URL = "https://github.com/jax-ml/jax/issues/2708"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''def eccentric_anomaly(mean_anomaly, ecc):
    def keep_going(state):
        e_prev, e_curr = state
        return not jnp.allclose(e_curr, e_prev, atol=1e-7)

    def step(state):
        _, e_curr = state
        return e_curr, mean_anomaly + ecc * jnp.sin(e_curr)

    start = (mean_anomaly + 1.0, mean_anomaly)
    return lax.while_loop(keep_going, step, start)[1]''',
    "E = eccentric_anomaly(jnp.float32(1.2), 0.3)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''def eccentric_anomaly(mean_anomaly, ecc):
    def keep_going(state):
        e_prev, e_curr = state
        return jnp.logical_not(jnp.allclose(e_curr, e_prev, atol=1e-7))

    def step(state):
        _, e_curr = state
        return e_curr, mean_anomaly + ecc * jnp.sin(e_curr)

    start = (mean_anomaly + 1.0, mean_anomaly)
    return lax.while_loop(keep_going, step, start)[1]''',
    "E = eccentric_anomaly(jnp.float32(1.2), 0.3)",
)
CHECK = "(lambda ref: abs(float(E) - ref) < 1e-5)(__import__('functools').reduce(lambda e, _: 1.2 + 0.3 * np.sin(e), range(200), 1.2))"
