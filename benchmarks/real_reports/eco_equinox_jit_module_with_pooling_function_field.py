"""Jitting a batched forward pass of a module-style network whose pooling layer stores its reduction function as a field."""

URL = "https://github.com/patrick-kidger/equinox/issues/149"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nimport dataclasses\nfrom typing import Callable",
    '''# Stand-ins for equinox-style modules: every dataclass field is a pytree leaf
# unless it is marked static.
@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Pool1d:
    operation: Callable
    window: int = dataclasses.field(metadata=dict(static=True))

    def __call__(self, x):
        return self.operation(x.reshape(-1, self.window), axis=1)

@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Net:
    gain: jax.Array
    pool: Pool1d

    def __call__(self, x):
        return self.pool(self.gain * x)

@jax.jit
def forward(model, xb):
    return jax.vmap(model)(xb)

model = Net(gain=jnp.array(0.5), pool=Pool1d(jnp.max, 2))
signals = jnp.array([[3., 1., 4., 1., 5., 9.],
                     [2., 6., 5., 3., 5., 8.],
                     [9., 7., 9., 3., 2., 3.]])''',
    "pooled = forward(model, signals)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nimport dataclasses\nfrom typing import Callable",
    '''# Stand-ins for equinox-style modules: every dataclass field is a pytree leaf
# unless it is marked static.
@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Pool1d:
    operation: Callable = dataclasses.field(metadata=dict(static=True))
    window: int = dataclasses.field(metadata=dict(static=True))

    def __call__(self, x):
        return self.operation(x.reshape(-1, self.window), axis=1)

@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Net:
    gain: jax.Array
    pool: Pool1d

    def __call__(self, x):
        return self.pool(self.gain * x)

@jax.jit
def forward(model, xb):
    return jax.vmap(model)(xb)

model = Net(gain=jnp.array(0.5), pool=Pool1d(jnp.max, 2))
signals = jnp.array([[3., 1., 4., 1., 5., 9.],
                     [2., 6., 5., 3., 5., 8.],
                     [9., 7., 9., 3., 2., 3.]])''',
    "pooled = forward(model, signals)",
)
CHECK = ("pooled.shape == (3, 3) and np.allclose(np.asarray(pooled), "
         "(0.5 * np.array([[3., 1., 4., 1., 5., 9.], [2., 6., 5., 3., 5., 8.], [9., 7., 9., 3., 2., 3.]]))"
         ".reshape(3, 3, 2).max(axis=2))")
