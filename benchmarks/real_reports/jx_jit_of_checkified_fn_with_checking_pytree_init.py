"""Validating interval bounds with checkify.check in a registered pytree's constructor and jitting the checkified total-width function."""

URL = "https://github.com/jax-ml/jax/issues/12306"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax.experimental import checkify",
    '''@jax.tree_util.register_pytree_node_class
class Intervals:
    def __init__(self, bounds):
        self.bounds = bounds
        checkify.check(jnp.all(bounds[:, 0] <= bounds[:, 1]), "lower bound above upper bound")

    def widths(self):
        return self.bounds[:, 1] - self.bounds[:, 0]

    def tree_flatten(self):
        return (self.bounds,), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)

def total_width(iv):
    return jnp.sum(iv.widths())

checked_total = checkify.checkify(total_width)
iv = Intervals(jnp.array([[0.0, 1.5], [2.0, 2.25], [-1.0, 3.0]]))''',
    "err, width = jax.jit(checked_total)(iv)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax.experimental import checkify",
    '''@jax.tree_util.register_pytree_node_class
class Intervals:
    def __init__(self, bounds):
        self.bounds = bounds
        checkify.check(jnp.all(bounds[:, 0] <= bounds[:, 1]), "lower bound above upper bound")

    def widths(self):
        return self.bounds[:, 1] - self.bounds[:, 0]

    def tree_flatten(self):
        return (self.bounds,), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)

def total_width(iv):
    return jnp.sum(iv.widths())

checked_total = checkify.checkify(total_width)
iv = Intervals(jnp.array([[0.0, 1.5], [2.0, 2.25], [-1.0, 3.0]]))''',
    "err, width = checkify.checkify(jax.jit(total_width))(iv)",
)
CHECK = "err.get() is None and np.isclose(float(width), 1.5 + 0.25 + 4.0, rtol=1e-6)"
