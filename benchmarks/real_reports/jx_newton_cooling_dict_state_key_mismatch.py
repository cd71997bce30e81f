"""Stepping Newton's law of cooling with lax.fori_loop, keeping the state in a dict whose key is spelled with different capitalisation in the loop body."""

URL = "https://github.com/jax-ml/jax/issues/25507"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''ambient, rate, dt = 20.0, 0.3, 0.5

def cool_step(i, state):
    temp = state["temp"]
    return {"Temp": temp - rate * dt * (temp - ambient)}

start = {"temp": jnp.array([90.0, 45.0])}''',
    "final = jax.lax.fori_loop(0, 12, cool_step, start)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''ambient, rate, dt = 20.0, 0.3, 0.5

def cool_step(i, state):
    temp = state["temp"]
    return {"temp": temp - rate * dt * (temp - ambient)}

start = {"temp": jnp.array([90.0, 45.0])}''',
    "final = jax.lax.fori_loop(0, 12, cool_step, start)",
)
CHECK = "np.allclose(np.asarray(final['temp']), 20.0 + (np.array([90.0, 45.0]) - 20.0) * (1 - 0.3 * 0.5) ** 12, rtol=1e-5)"
