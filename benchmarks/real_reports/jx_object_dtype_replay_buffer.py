"""Packing a list of (state, reward, ..., done) transition tuples into one jnp.array with dtype=object."""

URL = "https://github.com/jax-ml/jax/issues/2347"
KIND = "diagnose"
CELLS = (
    "import jax, jax.numpy as jnp",
    '''transitions = [
    (jnp.array([0.1, 0.2]), 1.0, 0.0, jnp.array([0.3, 0.4]), False),
    (jnp.array([0.3, 0.4]), 0.0, 1.0, jnp.array([0.5, 0.6]), True),
]''',
    "buffer = jnp.array(transitions, dtype=object)",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    '''transitions = [
    (jnp.array([0.1, 0.2]), 1.0, 0.0, jnp.array([0.3, 0.4]), False),
    (jnp.array([0.3, 0.4]), 0.0, 1.0, jnp.array([0.5, 0.6]), True),
]''',
    '''states = jnp.stack([t[0] for t in transitions])
rewards = jnp.array([t[1] for t in transitions])
discounts = jnp.array([t[2] for t in transitions])
next_states = jnp.stack([t[3] for t in transitions])
dones = jnp.array([t[4] for t in transitions])''',
)
CHECK = "states.shape == (2, 2) and next_states.shape == (2, 2) and rewards.tolist() == [1.0, 0.0] and dones.tolist() == [False, True]"
