"""Rolling out a point-mass environment for a fixed number of steps inside a jitted fori_loop, with the environment state kept in a small attribute-style container class (like envpool's TreeValue states)."""

URL = "https://github.com/sail-sg/envpool/issues/246"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''class EnvState:
    """Attribute-access container for environment arrays."""
    def __init__(self, **fields):
        self.__dict__.update(fields)

def env_step(i, state):
    vel = state.vel - 0.1 * state.pos
    return EnvState(pos=state.pos + 0.1 * vel, vel=vel)

@jax.jit
def rollout(state):
    return jax.lax.fori_loop(0, 3, env_step, state)

start = EnvState(pos=jnp.array([1.0, 0.0]), vel=jnp.array([0.0, 2.0]))''',
    "final = rollout(start)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''class EnvState:
    """Attribute-access container for environment arrays."""
    def __init__(self, **fields):
        self.__dict__.update(fields)

jax.tree_util.register_pytree_node(
    EnvState,
    lambda s: (tuple(s.__dict__[k] for k in sorted(s.__dict__)), tuple(sorted(s.__dict__))),
    lambda names, values: EnvState(**dict(zip(names, values))),
)

def env_step(i, state):
    vel = state.vel - 0.1 * state.pos
    return EnvState(pos=state.pos + 0.1 * vel, vel=vel)

@jax.jit
def rollout(state):
    return jax.lax.fori_loop(0, 3, env_step, state)

start = EnvState(pos=jnp.array([1.0, 0.0]), vel=jnp.array([0.0, 2.0]))''',
    "final = rollout(start)",
)
CHECK = ("(lambda pv: np.allclose(np.asarray(final.pos), pv[0], rtol=1e-5) and np.allclose(np.asarray(final.vel), pv[1], rtol=1e-5))"
         "(__import__('functools').reduce(lambda pv, _: (pv[0] + 0.1 * (pv[1] - 0.1 * pv[0]), pv[1] - 0.1 * pv[0]), range(3), "
         "(np.array([1.0, 0.0]), np.array([0.0, 2.0]))))")
