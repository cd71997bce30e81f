"""Running a jitted training step that donates both the parameters and the state of a schedule-free-style SGD optimiser whose init stores the parameters themselves as its averaging sequence z."""

URL = "https://github.com/google-deepmind/optax/pull/1059"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom functools import partial",
    '''def sf_init(params):
    # schedule-free keeps a second sequence z that starts at the parameters
    return {'z': params, 'count': jnp.zeros([], jnp.int32)}

def loss(params):
    return jnp.sum((params['w'] - jnp.array([1.0, -2.0, 0.5])) ** 2)

@partial(jax.jit, donate_argnums=(0, 1))
def train_step(params, state, lr=0.1, beta=0.9):
    g = jax.grad(loss)(params)
    z = jax.tree.map(lambda z, g: z - lr * g, state['z'], g)
    params = jax.tree.map(lambda x, z: beta * x + (1 - beta) * z, params, z)
    return params, {'z': z, 'count': state['count'] + 1}

params = {'w': jnp.array([0.0, 0.0, 0.0])}
state = sf_init(params)''',
    "params, state = train_step(params, state)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom functools import partial",
    '''def sf_init(params):
    # schedule-free keeps a second sequence z that starts at the parameters
    return {'z': jax.tree.map(jnp.copy, params), 'count': jnp.zeros([], jnp.int32)}

def loss(params):
    return jnp.sum((params['w'] - jnp.array([1.0, -2.0, 0.5])) ** 2)

@partial(jax.jit, donate_argnums=(0, 1))
def train_step(params, state, lr=0.1, beta=0.9):
    g = jax.grad(loss)(params)
    z = jax.tree.map(lambda z, g: z - lr * g, state['z'], g)
    params = jax.tree.map(lambda x, z: beta * x + (1 - beta) * z, params, z)
    return params, {'z': z, 'count': state['count'] + 1}

params = {'w': jnp.array([0.0, 0.0, 0.0])}
state = sf_init(params)''',
    "params, state = train_step(params, state)",
)
CHECK = ("np.allclose(np.asarray(state['z']['w']), 0.2 * np.array([1.0, -2.0, 0.5]), atol=1e-6) and "
         "np.allclose(np.asarray(params['w']), 0.1 * 0.2 * np.array([1.0, -2.0, 0.5]), atol=1e-6) and int(state['count']) == 1")
