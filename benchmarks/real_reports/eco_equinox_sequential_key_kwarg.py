"""A home-made Sequential container that passes a PRNG key to every layer, including a plain activation function."""

URL = "https://github.com/patrick-kidger/equinox/issues/32"
KIND = "silent"
CELLS = (
    "import jax, jax.numpy as jnp",
    """class Linear:
    def __init__(self, w, b):
        self.w, self.b = w, b
    def __call__(self, x, *, key=None):
        return x @ self.w + self.b

def swish(x):
    return x * jax.nn.sigmoid(x)

class Sequential:
    def __init__(self, layers):
        self.layers = layers
    def __call__(self, x, *, key=None):
        keys = [None] * len(self.layers) if key is None else list(jax.random.split(key, len(self.layers)))
        for layer, k in zip(self.layers, keys):
            x = layer(x, key=k)
        return x

model = Sequential([Linear(jnp.ones((2, 3)), jnp.zeros(3)), swish, Linear(jnp.ones((3, 1)), jnp.zeros(1))])""",
    "y = model(jnp.array([1.0, 2.0]), key=jax.random.PRNGKey(0))",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """class Linear:
    def __init__(self, w, b):
        self.w, self.b = w, b
    def __call__(self, x, *, key=None):
        return x @ self.w + self.b

def swish(x):
    return x * jax.nn.sigmoid(x)

class Lambda:
    def __init__(self, fn):
        self.fn = fn
    def __call__(self, x, *, key=None):
        return self.fn(x)

class Sequential:
    def __init__(self, layers):
        self.layers = layers
    def __call__(self, x, *, key=None):
        keys = [None] * len(self.layers) if key is None else list(jax.random.split(key, len(self.layers)))
        for layer, k in zip(self.layers, keys):
            x = layer(x, key=k)
        return x

model = Sequential([Linear(jnp.ones((2, 3)), jnp.zeros(3)), Lambda(swish), Linear(jnp.ones((3, 1)), jnp.zeros(1))])""",
    "y = model(jnp.array([1.0, 2.0]), key=jax.random.PRNGKey(0))",
)
# hidden = 3 each, swish(3) = 3 * sigmoid(3) = 2.8577223, output = 3 * 2.8577223
CHECK = "y.shape == (1,) and abs(float(y[0]) - 8.5731670) < 1e-5"
