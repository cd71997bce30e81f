"""Driving a batch of custom environments whose step returns an unbatched image, tripping the driver's length assertion."""

URL = "https://github.com/danijar/dreamerv3/issues/16"
KIND = "silent"
CELLS = (
    "import numpy as np\nimport jax, jax.numpy as jnp",
    """class BatchEnv:
    def __init__(self, n):
        self.n = n
    def __len__(self):
        return self.n
    def step(self, acts):
        return {
            "image": np.zeros((64, 64, 3), np.uint8),          # forgot the batch axis
            "reward": np.zeros(self.n, np.float32),
            "is_first": np.zeros(self.n, bool),
        }

def policy(obs):
    return {"action": jnp.zeros((len(obs["reward"]), 4))}

def driver_step(env, acts):
    obs = env.step(acts)
    assert all(len(x) == len(env) for x in obs.values()), {k: v.shape for k, v in obs.items()}
    return policy(obs)

env = BatchEnv(2)""",
    "acts = driver_step(env, {'action': np.zeros((2, 4))})",
)
FIXED = (
    "import numpy as np\nimport jax, jax.numpy as jnp",
    """class BatchEnv:
    def __init__(self, n):
        self.n = n
    def __len__(self):
        return self.n
    def step(self, acts):
        return {
            "image": np.zeros((self.n, 64, 64, 3), np.uint8),
            "reward": np.zeros(self.n, np.float32),
            "is_first": np.zeros(self.n, bool),
        }

def policy(obs):
    return {"action": jnp.zeros((len(obs["reward"]), 4))}

def driver_step(env, acts):
    obs = env.step(acts)
    assert all(len(x) == len(env) for x in obs.values()), {k: v.shape for k, v in obs.items()}
    return policy(obs)

env = BatchEnv(2)""",
    "acts = driver_step(env, {'action': np.zeros((2, 4))})",
)
CHECK = "acts['action'].shape == (2, 4)"
