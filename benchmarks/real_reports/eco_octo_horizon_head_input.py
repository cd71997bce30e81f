"""Running a pretrained action head after the prediction horizon in its config was changed from the one it was trained with."""

URL = "https://github.com/octo-models/octo/issues/97"
KIND = "diagnose"
CELLS = (
    "import jax, jax.numpy as jnp",
    """obs_dim, action_dim = 6, 7
trained_horizon = 4
checkpoint = {"w": jnp.full((obs_dim + trained_horizon * action_dim, 16), 0.01), "b": jnp.zeros(16)}
config = {"pred_horizon": 8}        # edited in the checkpoint's config file

def head(params, obs, noisy_actions):
    x = jnp.concatenate([obs, noisy_actions.reshape(noisy_actions.shape[0], -1)], axis=-1)
    return jax.nn.relu(x @ params["w"] + params["b"])""",
    """obs = jnp.ones((2, obs_dim))
noisy_actions = jnp.ones((2, config["pred_horizon"], action_dim))
features = head(checkpoint, obs, noisy_actions)""",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """obs_dim, action_dim = 6, 7
trained_horizon = 4
checkpoint = {"w": jnp.full((obs_dim + trained_horizon * action_dim, 16), 0.01), "b": jnp.zeros(16)}
config = {"pred_horizon": trained_horizon}   # the horizon the checkpoint was trained with

def head(params, obs, noisy_actions):
    x = jnp.concatenate([obs, noisy_actions.reshape(noisy_actions.shape[0], -1)], axis=-1)
    return jax.nn.relu(x @ params["w"] + params["b"])""",
    """obs = jnp.ones((2, obs_dim))
noisy_actions = jnp.ones((2, config["pred_horizon"], action_dim))
features = head(checkpoint, obs, noisy_actions)""",
)
# (6 + 4 * 7) inputs of 1.0 times 0.01 = 0.34
CHECK = "features.shape == (2, 16) and bool(jnp.allclose(features, 0.34, atol=1e-6))"
