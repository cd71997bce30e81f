"""Computing actions for a batch of custom-environment observations with an elementwise product instead of a matrix product."""

URL = "https://github.com/google/brax/issues/39"
KIND = "diagnose"
CELLS = (
    "import jax, jax.numpy as jnp",
    """num_envs, obs_size, action_size = 50, 32, 4
params = {"w": jnp.full((obs_size, action_size), 0.1), "b": jnp.zeros(action_size)}
obs = jnp.ones((num_envs, obs_size))

def policy(params, obs):
    return jnp.tanh(jnp.sum(obs[None] * params["w"][None], axis=-1) + params["b"])""",
    "actions = policy(params, obs)",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """num_envs, obs_size, action_size = 50, 32, 4
params = {"w": jnp.full((obs_size, action_size), 0.1), "b": jnp.zeros(action_size)}
obs = jnp.ones((num_envs, obs_size))

def policy(params, obs):
    return jnp.tanh(obs @ params["w"] + params["b"])""",
    "actions = policy(params, obs)",
)
# every action: tanh(32 * 0.1) = tanh(3.2)
CHECK = "actions.shape == (50, 4) and abs(float(actions[0, 0]) - 0.9966824) < 1e-6"
