"""Applying weight decay to only the dense layer of a frozen-dict parameter tree by wrapping the decay in a mask, then taking one SGD step."""

URL = "https://github.com/google-deepmind/optax/issues/160"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import tree_util",
    '''class FrozenDict:
    """Stand-in for flax.core.FrozenDict: an immutable mapping that is its own pytree node type."""
    def __init__(self, d):
        self._d = dict(d)
    def __getitem__(self, k):
        return self._d[k]
    def keys(self):
        return self._d.keys()
    def __repr__(self):
        return f"FrozenDict({self._d!r})"

tree_util.register_pytree_with_keys(
    FrozenDict,
    lambda fd: ([(tree_util.DictKey(k), fd._d[k]) for k in sorted(fd._d)], tuple(sorted(fd._d))),
    lambda keys, children: FrozenDict(zip(keys, children)))

def freeze(d):
    return FrozenDict({k: freeze(v) if isinstance(v, dict) else v for k, v in d.items()})

# --- tiny stand-ins for the optimizer pieces -----------------------------------------
def add_decayed_weights(wd):
    return lambda g, p: tree_util.tree_map(lambda gi, pi: gi + wd * pi, g, p)

def sgd(lr):
    return lambda g, p: tree_util.tree_map(lambda gi: -lr * gi, g)

def masked(inner, mask):
    """Apply `inner` only to the sub-trees of the updates where `mask` (a prefix of params) is True."""
    def update(g, p):
        # the mask is a prefix of the updates: each of its leaves picks a whole sub-tree
        return tree_util.tree_map(lambda m, a, b: inner(a, b) if m else a, mask, g, p)
    return update

def chain(*transforms):
    def update(g, p):
        for t in transforms:
            g = t(g, p)
        return g
    return update

def apply_updates(p, u):
    return tree_util.tree_map(jnp.add, p, u)

params = freeze({
    "Dense": {"kernel": jnp.array([[0.4, -0.2], [0.6, 0.1], [-0.3, 0.5]]), "bias": jnp.array([0.05, -0.05])},
    "LayerNorm": {"scale": jnp.array([1.0, 0.9]), "bias": jnp.array([0.2, -0.1])},
})
grads = freeze({
    "Dense": {"kernel": jnp.array([[0.1, 0.0], [-0.2, 0.3], [0.05, -0.1]]), "bias": jnp.array([0.02, 0.04])},
    "LayerNorm": {"scale": jnp.array([-0.3, 0.1]), "bias": jnp.array([0.0, 0.2])},
})
decay_mask = {"Dense": True, "LayerNorm": False}     # decay the dense layer only
tx = chain(masked(add_decayed_weights(0.1), decay_mask), sgd(0.5))''',
    "new_params = apply_updates(params, tx(grads, params))",
)
FIXED = (
    CELLS[0],
    CELLS[1].replace('decay_mask = {"Dense": True, "LayerNorm": False}',
                     'decay_mask = freeze({"Dense": True, "LayerNorm": False})'),
    "new_params = apply_updates(params, tx(grads, params))",
)
CHECK = (
    "isinstance(new_params, FrozenDict) "
    "and np.allclose(np.asarray(new_params['Dense']['kernel']), np.array([[0.4, -0.2], [0.6, 0.1], [-0.3, 0.5]]) "
    "- 0.5 * (np.array([[0.1, 0.0], [-0.2, 0.3], [0.05, -0.1]]) + 0.1 * np.array([[0.4, -0.2], [0.6, 0.1], [-0.3, 0.5]])), atol=1e-6) "
    "and np.allclose(np.asarray(new_params['Dense']['bias']), np.array([0.05, -0.05]) - 0.5 * (np.array([0.02, 0.04]) + 0.1 * np.array([0.05, -0.05])), atol=1e-6) "
    "and np.allclose(np.asarray(new_params['LayerNorm']['scale']), np.array([1.0, 0.9]) - 0.5 * np.array([-0.3, 0.1]), atol=1e-6) "
    "and np.allclose(np.asarray(new_params['LayerNorm']['bias']), np.array([0.2, -0.1]) - 0.5 * np.array([0.0, 0.2]), atol=1e-6)"
)
