"""Computing a DQN loss with a Q-network restored from a game with 6 actions while the new game has 4."""

URL = "https://github.com/google-research/reincarnating_rl/issues/5"
KIND = "diagnose"
CELLS = (
    "import jax, jax.numpy as jnp",
    """restored = {"w": jnp.full((8, 6), 0.05), "b": jnp.zeros(6)}   # teacher trained on a 6-action game
num_actions = 4                                                # the new game

def q_values(params, obs):
    return obs @ params["w"] + params["b"]

def td_loss(params, obs, actions, targets):
    q = q_values(params, obs)
    chosen = jnp.sum(q * jax.nn.one_hot(actions, num_actions), axis=-1)
    return jnp.mean((chosen - targets) ** 2)

obs = jnp.ones((3, 8))
actions = jnp.array([0, 3, 1])
targets = jnp.array([1.0, 0.0, 0.5])""",
    "loss = td_loss(restored, obs, actions, targets)",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """restored = {"w": jnp.full((8, 6), 0.05), "b": jnp.zeros(6)}   # teacher trained on a 6-action game
num_actions = 4                                                # the new game
# keep the teacher's features but give the new game its own head (here: the first 4 action columns)
params = {"w": restored["w"][:, :num_actions], "b": restored["b"][:num_actions]}

def q_values(params, obs):
    return obs @ params["w"] + params["b"]

def td_loss(params, obs, actions, targets):
    q = q_values(params, obs)
    chosen = jnp.sum(q * jax.nn.one_hot(actions, num_actions), axis=-1)
    return jnp.mean((chosen - targets) ** 2)

obs = jnp.ones((3, 8))
actions = jnp.array([0, 3, 1])
targets = jnp.array([1.0, 0.0, 0.5])""",
    "loss = td_loss(params, obs, actions, targets)",
)
# every Q value is 8 * 0.05 = 0.4: mean((0.4-1)^2, (0.4-0)^2, (0.4-0.5)^2) = (0.36 + 0.16 + 0.01) / 3
CHECK = "abs(float(loss) - 0.53 / 3) < 1e-6"
