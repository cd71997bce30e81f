"""Writing an MLP as a frozen dataclass 'module' and assigning its layers inside a custom __init__."""

URL = "https://github.com/patrick-kidger/equinox/issues/788"
KIND = "silent"
CELLS = (
    "import dataclasses\nimport jax, jax.numpy as jnp",
    """@dataclasses.dataclass(frozen=True)
class MLP:
    layers: list
    activation: object

    def __init__(self, hidden_dims):
        keys = jax.random.split(jax.random.PRNGKey(0), len(hidden_dims) - 1)
        self.layers = [jax.random.normal(k, (hidden_dims[i], hidden_dims[i + 1]))
                       for i, k in enumerate(keys)]
        self.activation = jax.nn.relu

    def __call__(self, x):
        for w in self.layers[:-1]:
            x = self.activation(x @ w)
        return x @ self.layers[-1]""",
    "mlp = MLP(hidden_dims=[1, 2, 4, 4, 2, 1])",
)
FIXED = (
    "import dataclasses\nimport jax, jax.numpy as jnp",
    """@dataclasses.dataclass(frozen=True)
class MLP:
    layers: list
    activation: object

    @classmethod
    def create(cls, hidden_dims):
        keys = jax.random.split(jax.random.PRNGKey(0), len(hidden_dims) - 1)
        layers = [jax.random.normal(k, (hidden_dims[i], hidden_dims[i + 1]))
                  for i, k in enumerate(keys)]
        return cls(layers=layers, activation=jax.nn.relu)

    def __call__(self, x):
        for w in self.layers[:-1]:
            x = self.activation(x @ w)
        return x @ self.layers[-1]""",
    "mlp = MLP.create(hidden_dims=[1, 2, 4, 4, 2, 1])\ny = mlp(jnp.ones(1))",
)
CHECK = "len(mlp.layers) == 5 and [w.shape for w in mlp.layers] == [(1, 2), (2, 4), (4, 4), (4, 2), (2, 1)] and y.shape == (1,)"
