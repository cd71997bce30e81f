"""Applying a gradient step with tree_map where the gradient tree holds None for a frozen parameter."""

URL = "https://github.com/jax-ml/jax/issues/2348"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''grads = {"w": jnp.array([1.0, 2.0]), "b": None}
params = {"w": jnp.array([0.5, 0.5]), "b": jnp.array(3.0)}''',
    "new = jax.tree_util.tree_map(lambda g, p: p if g is None else p - 0.1 * g, grads, params)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''grads = {"w": jnp.array([1.0, 2.0]), "b": None}
params = {"w": jnp.array([0.5, 0.5]), "b": jnp.array(3.0)}''',
    '''new = jax.tree_util.tree_map(lambda g, p: p if g is None else p - 0.1 * g, grads, params,
                             is_leaf=lambda node: node is None)''',
)
CHECK = "np.allclose(np.asarray(new['w']), [0.4, 0.3]) and float(new['b']) == 3.0"
