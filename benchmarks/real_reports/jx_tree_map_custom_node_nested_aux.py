"""tree_map over a custom ParamsDict pytree and a same-class tree of pairs derived from it."""

URL = "https://github.com/jax-ml/jax/issues/10710"
KIND = "diagnose"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''@jax.tree_util.register_pytree_node_class
class ParamsDict:
    def __init__(self, **kwargs):
        self.params = dict(kwargs)

    def tree_flatten(self):
        return jax.tree_util.tree_flatten(self.params)

    @classmethod
    def tree_unflatten(cls, aux, leaves):
        return cls(**jax.tree_util.tree_unflatten(aux, leaves))''',
    '''e = ParamsDict(a=jnp.zeros((1, 4)))
pairs = jax.tree_util.tree_map(lambda x: (x, 1.1), e)''',
    "out = jax.tree_util.tree_map(lambda a, b: a + b[1], e, pairs)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''@jax.tree_util.register_pytree_node_class
class ParamsDict:
    def __init__(self, **kwargs):
        self.params = dict(kwargs)

    def tree_flatten(self):
        return (self.params,), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(**children[0])''',
    '''e = ParamsDict(a=jnp.zeros((1, 4)))
pairs = jax.tree_util.tree_map(lambda x: (x, 1.1), e)''',
    "out = jax.tree_util.tree_map(lambda a, b: a + b[1], e, pairs)",
)
CHECK = "out.params['a'].shape == (1, 4) and np.allclose(np.asarray(out.params['a']), 1.1)"
