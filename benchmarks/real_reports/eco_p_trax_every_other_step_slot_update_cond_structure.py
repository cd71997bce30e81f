"""Applying a momentum optimiser's slot update only on every other step with lax.cond, where the optimiser's init builds the slots as a list and its update returns them as a tuple."""

URL = "https://github.com/google/trax/issues/1061"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def init_slots(weights):
    return [jnp.zeros_like(w) for w in weights]

def update_slots(slots, grads, beta=0.8):
    return tuple(beta * s + g for s, g in zip(slots, grads))

@jax.jit
def maybe_update(step, slots, grads):
    return jax.lax.cond(step % 2 == 0,
                        lambda s: update_slots(s, grads),
                        lambda s: s,
                        slots)

weights = [jnp.ones((2, 2)), jnp.ones(3)]
grads = [jnp.full((2, 2), 0.5), jnp.array([1.0, -1.0, 2.0])]
slots = init_slots(weights)''',
    "slots = maybe_update(0, slots, grads)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def init_slots(weights):
    return [jnp.zeros_like(w) for w in weights]

def update_slots(slots, grads, beta=0.8):
    return [beta * s + g for s, g in zip(slots, grads)]

@jax.jit
def maybe_update(step, slots, grads):
    return jax.lax.cond(step % 2 == 0,
                        lambda s: update_slots(s, grads),
                        lambda s: s,
                        slots)

weights = [jnp.ones((2, 2)), jnp.ones(3)]
grads = [jnp.full((2, 2), 0.5), jnp.array([1.0, -1.0, 2.0])]
slots = init_slots(weights)''',
    "slots = maybe_update(0, slots, grads)",
)
CHECK = ("isinstance(slots, list) and np.allclose(np.asarray(slots[0]), np.full((2, 2), 0.5)) "
         "and np.allclose(np.asarray(slots[1]), [1.0, -1.0, 2.0])")
