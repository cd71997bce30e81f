"""Declaring a gridworld's discrete observation space whose category count defaults to sys.maxsize ("unbounded") and sampling a random 3x4 categorical observation from it."""

URL = "https://github.com/epignatelli/navix/pull/44"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nimport sys",
    '''class Discrete:
    def __init__(self, n_elements=sys.maxsize, shape=()):
        self.shape = shape
        self.minimum = jnp.asarray(0)
        self.maximum = jnp.asarray(n_elements - 1)

    def sample(self, key):
        return jax.random.randint(key, self.shape, self.minimum, self.maximum)''',
    '''space = Discrete(shape=(3, 4))
obs = space.sample(jax.random.key(0))''',
)
FIXED = (
    CELLS[0],
    '''class Discrete:
    def __init__(self, n_elements=int(jnp.iinfo(jnp.int32).max), shape=()):
        self.shape = shape
        self.minimum = jnp.asarray(0)
        self.maximum = jnp.asarray(n_elements - 1)

    def sample(self, key):
        return jax.random.randint(key, self.shape, self.minimum, self.maximum)''',
    CELLS[2],
)
CHECK = ("obs.shape == (3, 4) and obs.dtype == jnp.int32 and int(space.maximum) == 2**31 - 2 "
         "and bool((np.asarray(obs) >= 0).all()) and bool((np.asarray(obs) < 2**31 - 2).all())")
