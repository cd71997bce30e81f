"""Calling a jitted loss-and-grad twice with a data object, holding an array, that was marked static."""

URL = "https://github.com/patrick-kidger/equinox/issues/746"
KIND = "fix"
CELLS = (
    "import dataclasses, functools\nimport jax, jax.numpy as jnp",
    """@dataclasses.dataclass(frozen=True)
class Data:
    values: jax.Array

    def __hash__(self):
        return hash(self.values.shape)

def make_data(seed):
    return Data(jax.random.uniform(jax.random.PRNGKey(seed), (3, 3)))

@functools.partial(jax.jit, static_argnums=1)
def loss_and_grad(foo, data):
    return jax.value_and_grad(lambda f: jnp.sum(f - data.values))(foo)

data0, data1 = make_data(0), make_data(1)
l0, g0 = loss_and_grad(jnp.float32(1.0), data0)""",
    "l1, g1 = loss_and_grad(jnp.float32(1.0), data1)",
)
FIXED = (
    "import dataclasses, functools\nimport jax, jax.numpy as jnp",
    """@dataclasses.dataclass(frozen=True)
class Data:
    values: jax.Array

    def __hash__(self):
        return hash(self.values.shape)

def make_data(seed):
    return Data(jax.random.uniform(jax.random.PRNGKey(seed), (3, 3)))

@jax.jit
def loss_and_grad(foo, values):
    return jax.value_and_grad(lambda f: jnp.sum(f - values))(foo)

data0, data1 = make_data(0), make_data(1)
l0, g0 = loss_and_grad(jnp.float32(1.0), data0.values)""",
    "l1, g1 = loss_and_grad(jnp.float32(1.0), data1.values)",
)
CHECK = ("float(g0) == 9.0 and float(g1) == 9.0 "
         "and abs(float(l1) - (9.0 - float(data1.values.sum()))) < 1e-4 "
         "and abs(float(l0) - (9.0 - float(data0.values.sum()))) < 1e-4")
