"""Jitting one step of a small brax-style environment wrapped so that each action is repeated over several substeps with lax.scan."""

URL = "https://github.com/google/brax/issues/228"
KIND = "fix"
CELLS = (
    'import jax, jax.numpy as jnp\nimport numpy as np\nfrom typing import NamedTuple',
    '''class State(NamedTuple):
    pos: jax.Array
    vel: jax.Array
    obs: jax.Array
    reward: jax.Array
    done: jax.Array

class PointRunner:
    """A tiny 2-D point-mass environment in the style of a brax Env."""
    dt = 0.05

    def reset(self):
        pos, vel = jnp.zeros(2), jnp.zeros(2)
        return State(pos, vel, jnp.concatenate([pos, vel]), jnp.zeros(()), jnp.zeros(()))

    def step(self, state, action):
        vel = state.vel + self.dt * action
        pos = state.pos + self.dt * vel
        forward_speed = (pos[:1] - state.pos[:1]) / self.dt
        ctrl_cost = 0.1 * jnp.sum(action ** 2)
        reward = forward_speed - ctrl_cost
        return State(pos, vel, jnp.concatenate([pos, vel]), reward, state.done)

class ActionRepeat:
    """Stand-in for the wrapper that applies each action for several physics substeps."""
    def __init__(self, env, repeat):
        self.env, self.repeat = env, repeat

    def reset(self):
        return self.env.reset()

    def step(self, state, action):
        def substep(s, _):
            s = self.env.step(s, action)
            return s, s.reward
        state, rewards = jax.lax.scan(substep, state, None, length=self.repeat)
        return state._replace(reward=jnp.sum(rewards, axis=0))

env = ActionRepeat(PointRunner(), repeat=4)
state = env.reset()
action = jnp.array([1.0, 0.5])''',
    'state = jax.jit(env.step)(state, action)',
)
FIXED = (
    'import jax, jax.numpy as jnp\nimport numpy as np\nfrom typing import NamedTuple',
    '''class State(NamedTuple):
    pos: jax.Array
    vel: jax.Array
    obs: jax.Array
    reward: jax.Array
    done: jax.Array

class PointRunner:
    """A tiny 2-D point-mass environment in the style of a brax Env."""
    dt = 0.05

    def reset(self):
        pos, vel = jnp.zeros(2), jnp.zeros(2)
        return State(pos, vel, jnp.concatenate([pos, vel]), jnp.zeros(()), jnp.zeros(()))

    def step(self, state, action):
        vel = state.vel + self.dt * action
        pos = state.pos + self.dt * vel
        forward_speed = (pos[0] - state.pos[0]) / self.dt
        ctrl_cost = 0.1 * jnp.sum(action ** 2)
        reward = forward_speed - ctrl_cost
        return State(pos, vel, jnp.concatenate([pos, vel]), reward, state.done)

class ActionRepeat:
    """Stand-in for the wrapper that applies each action for several physics substeps."""
    def __init__(self, env, repeat):
        self.env, self.repeat = env, repeat

    def reset(self):
        return self.env.reset()

    def step(self, state, action):
        def substep(s, _):
            s = self.env.step(s, action)
            return s, s.reward
        state, rewards = jax.lax.scan(substep, state, None, length=self.repeat)
        return state._replace(reward=jnp.sum(rewards, axis=0))

env = ActionRepeat(PointRunner(), repeat=4)
state = env.reset()
action = jnp.array([1.0, 0.5])''',
    'state = jax.jit(env.step)(state, action)',
)
CHECK = ("np.shape(state.reward) == () "
         "and abs(float(state.reward) - sum(k * 0.05 * 1.0 - 0.1 * (1.0 ** 2 + 0.5 ** 2) for k in range(1, 5))) < 1e-5 "
         "and np.allclose(np.asarray(state.pos), 0.05 ** 2 * np.array([1.0, 0.5]) * 10, atol=1e-6)")
