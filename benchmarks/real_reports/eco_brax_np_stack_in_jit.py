"""Jitting a hand-written environment step that builds its observation with numpy.stack."""

URL = "https://github.com/google/brax/issues/321"
KIND = "fix"
CELLS = (
    "import numpy as np\nimport jax, jax.numpy as jnp",
    """def step(state, action):
    pos = state["pos"] + 0.1 * action
    vel = state["vel"]
    obs = np.stack([pos, vel])
    return {"pos": pos, "vel": vel, "obs": obs}

state = {"pos": jnp.zeros(3), "vel": jnp.ones(3), "obs": jnp.zeros((2, 3))}""",
    "new_state = jax.jit(step)(state, jnp.ones(3))",
)
FIXED = (
    "import numpy as np\nimport jax, jax.numpy as jnp",
    """def step(state, action):
    pos = state["pos"] + 0.1 * action
    vel = state["vel"]
    obs = jnp.stack([pos, vel])
    return {"pos": pos, "vel": vel, "obs": obs}

state = {"pos": jnp.zeros(3), "vel": jnp.ones(3), "obs": jnp.zeros((2, 3))}""",
    "new_state = jax.jit(step)(state, jnp.ones(3))",
)
CHECK = ("new_state['obs'].shape == (2, 3) and abs(float(new_state['obs'].sum()) - 3.3) < 1e-5 "
         "and abs(float(new_state['obs'][0, 0]) - 0.1) < 1e-6")
