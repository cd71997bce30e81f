"""Creating a JAX array of None placeholders to be filled in later, like a Python list."""

URL = "https://github.com/jax-ml/jax/issues/1580"
KIND = "diagnose"
CELLS = (
    "import jax, jax.numpy as jnp",
    "n_slots = 3",
    "slots = jnp.array([None] * n_slots)\nslots = slots.at[1].set(7.0)",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    "n_slots = 3",
    "slots = jnp.full((n_slots,), jnp.nan)\nslots = slots.at[1].set(7.0)",
)
CHECK = "bool(jnp.isnan(slots[0])) and bool(jnp.isnan(slots[2])) and float(slots[1]) == 7.0"
