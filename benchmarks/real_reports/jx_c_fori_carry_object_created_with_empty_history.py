"""Recording a ball's trajectory in a jitted lax.fori_loop whose carry holds a small state object that is re-created each step with the filled-in history buffer, while the initial object was built with an empty history."""

URL = "https://github.com/jax-ml/jax/issues/17629"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom functools import partial\nfrom typing import NamedTuple",
    '''DT = 0.05
GRAVITY = jnp.array([0.0, 0.0, -9.81])

class Ball(NamedTuple):
    pos: jax.Array
    vel: jax.Array
    history: jax.Array

    @classmethod
    def create(cls, pos, vel, history=None):
        if history is None:
            history = jnp.zeros((0,), dtype=jnp.float32)
        return cls(pos, vel, history)

@partial(jax.jit, static_argnames="steps")
def rollout(ball, steps=10):
    history = jnp.zeros((steps, 3))
    def step(i, carry):
        history, ball = carry
        history = history.at[i].set(ball.pos)
        vel = ball.vel + DT * GRAVITY
        pos = ball.pos + DT * vel
        return history, Ball.create(pos, vel, history)
    return jax.lax.fori_loop(0, steps, step, (history, ball))

ball0 = Ball.create(jnp.array([0.0, 0.0, 2.0]), jnp.array([1.0, 0.5, 3.0]))''',
    "history, ball = rollout(ball0)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom functools import partial\nfrom typing import NamedTuple",
    '''DT = 0.05
GRAVITY = jnp.array([0.0, 0.0, -9.81])

class Ball(NamedTuple):
    pos: jax.Array
    vel: jax.Array
    history: jax.Array

    @classmethod
    def create(cls, pos, vel, history=None):
        if history is None:
            history = jnp.zeros((0,), dtype=jnp.float32)
        return cls(pos, vel, history)

@partial(jax.jit, static_argnames="steps")
def rollout(ball, steps=10):
    history = jnp.zeros((steps, 3))
    ball = ball._replace(history=history)
    def step(i, carry):
        history, ball = carry
        history = history.at[i].set(ball.pos)
        vel = ball.vel + DT * GRAVITY
        pos = ball.pos + DT * vel
        return history, Ball.create(pos, vel, history)
    return jax.lax.fori_loop(0, steps, step, (history, ball))

ball0 = Ball.create(jnp.array([0.0, 0.0, 2.0]), jnp.array([1.0, 0.5, 3.0]))''',
    "history, ball = rollout(ball0)",
)
CHECK = ("history.shape == (10, 3) and np.allclose(np.asarray(history), "
         "np.array([0.0, 0.0, 2.0]) + np.arange(10)[:, None] * 0.05 * np.array([1.0, 0.5, 3.0])"
         " + 0.05 ** 2 * np.array([0.0, 0.0, -9.81]) * (np.arange(10) * (np.arange(10) + 1) / 2)[:, None], atol=1e-5)"
         " and np.allclose(np.asarray(ball.history), np.asarray(history))")
