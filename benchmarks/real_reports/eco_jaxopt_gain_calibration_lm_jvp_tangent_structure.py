"""Taking one hand-written Levenberg-Marquardt step on antenna gain parameters held in a NamedTuple, checking the predicted residual with a Jacobian-vector product along the step."""

URL = "https://github.com/google/jaxopt/issues/579"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom typing import NamedTuple",
    '''class GainParams(NamedTuple):
    real: jax.Array
    imag: jax.Array

observed = GainParams(real=jnp.array([1.2, 0.8, -0.4, 0.3]),
                      imag=jnp.array([0.1, -0.5, 0.6, 0.2]))

def residual_fn(params):
    return jnp.concatenate([params.real - observed.real, params.imag - observed.imag])

def lm_step(params, damping):
    flat = jnp.concatenate([params.real, params.imag])
    jac = jax.jacfwd(lambda f: residual_fn(GainParams(*jnp.split(f, 2))))(flat)
    r = residual_fn(params)
    delta = -jnp.linalg.solve(jac.T @ jac + damping * jnp.eye(flat.size), jac.T @ r)
    step = tuple(jnp.split(delta, 2))
    _, j_step = jax.jvp(residual_fn, (params,), (step,))
    predicted = jnp.sum((r + j_step) ** 2)
    new_params = jax.tree.map(lambda p, s: p + s, params, GainParams(*step))
    return new_params, predicted

start = GainParams(real=jnp.ones(4), imag=jnp.zeros(4))''',
    "new_params, predicted = lm_step(start, 0.25)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom typing import NamedTuple",
    '''class GainParams(NamedTuple):
    real: jax.Array
    imag: jax.Array

observed = GainParams(real=jnp.array([1.2, 0.8, -0.4, 0.3]),
                      imag=jnp.array([0.1, -0.5, 0.6, 0.2]))

def residual_fn(params):
    return jnp.concatenate([params.real - observed.real, params.imag - observed.imag])

def lm_step(params, damping):
    flat = jnp.concatenate([params.real, params.imag])
    jac = jax.jacfwd(lambda f: residual_fn(GainParams(*jnp.split(f, 2))))(flat)
    r = residual_fn(params)
    delta = -jnp.linalg.solve(jac.T @ jac + damping * jnp.eye(flat.size), jac.T @ r)
    step = GainParams(*jnp.split(delta, 2))
    _, j_step = jax.jvp(residual_fn, (params,), (step,))
    predicted = jnp.sum((r + j_step) ** 2)
    new_params = jax.tree.map(lambda p, s: p + s, params, GainParams(*step))
    return new_params, predicted

start = GainParams(real=jnp.ones(4), imag=jnp.zeros(4))''',
    "new_params, predicted = lm_step(start, 0.25)",
)
CHECK = ("isinstance(new_params, GainParams)"
         " and np.allclose(np.asarray(new_params.real), 1.0 - (1.0 - np.array([1.2, 0.8, -0.4, 0.3])) / 1.25, atol=1e-5)"
         " and np.allclose(np.asarray(new_params.imag), -(0.0 - np.array([0.1, -0.5, 0.6, 0.2])) / 1.25, atol=1e-5)"
         " and abs(float(predicted) - float(np.sum((np.concatenate([1.0 - np.array([1.2, 0.8, -0.4, 0.3]), -np.array([0.1, -0.5, 0.6, 0.2])]) * 0.2) ** 2))) < 1e-5")
