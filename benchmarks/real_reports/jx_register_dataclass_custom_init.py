"""Jitting over a dataclass registered as a pytree whose hand-written keyword-only __init__ cannot rebuild it."""

URL = "https://github.com/jax-ml/jax/issues/25486"
KIND = "diagnose"
CELLS = (
    "import jax, jax.numpy as jnp\nimport dataclasses",
    '''@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Scaled:
    x: jax.Array

    def __init__(self, *, raw):
        self.x = jnp.asarray(raw) * 2.0''',
    "total = jax.jit(lambda s: jnp.sum(s.x))(Scaled(raw=[1.0, 2.0]))",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport dataclasses",
    '''@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Scaled:
    x: jax.Array

    @classmethod
    def from_raw(cls, raw):
        return cls(x=jnp.asarray(raw) * 2.0)''',
    "total = jax.jit(lambda s: jnp.sum(s.x))(Scaled.from_raw([1.0, 2.0]))",
)
CHECK = "abs(float(total) - 6.0) < 1e-6"
