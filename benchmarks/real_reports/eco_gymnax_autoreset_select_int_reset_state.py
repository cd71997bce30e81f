"""Writing a small custom environment whose step wrapper auto-resets finished episodes by choosing between the reset state and the stepped state leaf by leaf."""

URL = "https://github.com/RobertTLange/gymnax/issues/52"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom typing import NamedTuple",
    '''class CartState(NamedTuple):
    position: jax.Array
    velocity: jax.Array
    steps: jax.Array

def reset_env():
    # start at rest at the origin
    return CartState(position=jnp.array(0), velocity=jnp.array(0), steps=jnp.array(0))

def step_env(state, force):
    velocity = state.velocity + 0.5 * force
    position = state.position + 0.1 * velocity
    return CartState(position, velocity, state.steps + 1)

def step(state, force):
    stepped = step_env(state, force)
    done = jnp.abs(stepped.position) > 0.25
    fresh = reset_env()
    new_state = jax.tree_util.tree_map(lambda r, s: jax.lax.select(done, r, s), fresh, stepped)
    return new_state, done

state0 = CartState(jnp.array(0.2), jnp.array(0.3), jnp.array(7))''',
    "state1, done1 = step(state0, 2.0)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom typing import NamedTuple",
    '''class CartState(NamedTuple):
    position: jax.Array
    velocity: jax.Array
    steps: jax.Array

def reset_env():
    # start at rest at the origin
    return CartState(position=jnp.array(0), velocity=jnp.array(0), steps=jnp.array(0))

def step_env(state, force):
    velocity = state.velocity + 0.5 * force
    position = state.position + 0.1 * velocity
    return CartState(position, velocity, state.steps + 1)

def step(state, force):
    stepped = step_env(state, force)
    done = jnp.abs(stepped.position) > 0.25
    fresh = reset_env()
    new_state = jax.tree_util.tree_map(lambda r, s: jnp.where(done, r, s), fresh, stepped)
    return new_state, done

state0 = CartState(jnp.array(0.2), jnp.array(0.3), jnp.array(7))''',
    "state1, done1 = step(state0, 2.0)",
)
CHECK = ("bool(done1) and float(state1.position) == 0.0 and float(state1.velocity) == 0.0 "
         "and int(state1.steps) == 0 and state1.position.dtype == jnp.float32 "
         "and (lambda s2, d2: (not bool(d2)) and np.isclose(float(s2.position), 0.2 + 0.1 * (0.3 - 0.5)) "
         "and np.isclose(float(s2.velocity), 0.3 - 0.5) and int(s2.steps) == 8)(*step(CartState(jnp.array(0.2), jnp.array(0.3), jnp.array(7)), -1.0))")
