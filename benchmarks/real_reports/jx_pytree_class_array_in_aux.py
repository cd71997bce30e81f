"""A registered pytree class that keeps an array in its aux data and swaps fields on unflatten; the second jitted call fails."""

URL = "https://github.com/jax-ml/jax/issues/19547"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    '''@jax.tree_util.register_pytree_node_class
class Pair:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def tree_flatten(self):
        return (self.y,), (self.x,)

    @classmethod
    def tree_unflatten(cls, aux, children):
        x, = children
        y, = aux
        return cls(x, y)''',
    '''a = Pair(jnp.array([1, 2]), jnp.array([2.5, 3.5, 4.5, 5.5]))
b = Pair(jnp.array([1, 2]), jnp.array([2.5, 3.5, 4.5, 5.5]))
total = jax.jit(lambda p: jnp.sum(p.x) + jnp.sum(p.y))
ra = total(a)''',
    "rb = total(b)",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    '''@jax.tree_util.register_pytree_node_class
class Pair:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def tree_flatten(self):
        return (self.x, self.y), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        x, y = children
        return cls(x, y)''',
    '''a = Pair(jnp.array([1, 2]), jnp.array([2.5, 3.5, 4.5, 5.5]))
b = Pair(jnp.array([1, 2]), jnp.array([2.5, 3.5, 4.5, 5.5]))
total = jax.jit(lambda p: jnp.sum(p.x) + jnp.sum(p.y))
ra = total(a)''',
    "rb = total(b)",
)
CHECK = "float(ra) == 19.0 and float(rb) == 19.0"
