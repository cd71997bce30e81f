"""Converting the outputs of a small JAX environment step to NumPy with a functools.singledispatch converter, registering the array handler on jnp.DeviceArray as older Gymnasium wrappers did."""

URL = "https://github.com/Farama-Foundation/Gymnasium/issues/701"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nimport functools",
    '''def env_step(state, action):
    new_state = state + 0.1 * action
    obs = jnp.concatenate([new_state, jnp.sin(new_state)])
    reward = -jnp.sum(new_state ** 2)
    return new_state, {"obs": obs, "reward": reward}

state0 = jnp.array([0.5, -1.0, 2.0])
action = jnp.array([1.0, 1.0, -1.0])

@functools.singledispatch
def to_numpy(value):
    return value

@to_numpy.register(dict)
def _(value):
    return {k: to_numpy(v) for k, v in value.items()}''',
    '''@to_numpy.register(jnp.DeviceArray)
def _(value):
    return np.asarray(value)

state1, out = env_step(state0, action)
np_out = to_numpy(out)''',
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nimport functools",
    CELLS[1],
    '''@to_numpy.register(jax.Array)
def _(value):
    return np.asarray(value)

state1, out = env_step(state0, action)
np_out = to_numpy(out)''',
)
CHECK = ("isinstance(np_out['obs'], np.ndarray) and isinstance(np_out['reward'], np.ndarray) "
         "and np.allclose(np_out['obs'], np.concatenate([[0.6, -0.9, 1.9], np.sin([0.6, -0.9, 1.9])]), atol=1e-5) "
         "and np.isclose(np_out['reward'], -(0.36 + 0.81 + 3.61), atol=1e-5)")
