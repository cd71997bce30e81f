"""Pairing tree_leaves of a parameter dict with the dict's own key order and asserting the shapes line up."""

URL = "https://github.com/jax-ml/jax/issues/4085"
KIND = "silent"
CELLS = (
    "import jax, jax.numpy as jnp",
    '''params = {"weights": jnp.ones((3, 2)), "bias": jnp.zeros(2)}
names = list(params.keys())''',
    '''leaves = jax.tree_util.tree_leaves(params)
by_name = dict(zip(names, leaves))
assert by_name["weights"].shape == (3, 2), by_name["weights"].shape''',
)
FIXED = (
    "import jax, jax.numpy as jnp",
    '''params = {"weights": jnp.ones((3, 2)), "bias": jnp.zeros(2)}''',
    '''leaves_with_path, _ = jax.tree_util.tree_flatten_with_path(params)
by_name = {path[0].key: leaf for path, leaf in leaves_with_path}
assert by_name["weights"].shape == (3, 2), by_name["weights"].shape''',
)
CHECK = "by_name['weights'].shape == (3, 2) and by_name['bias'].shape == (2,)"
