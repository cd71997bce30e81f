"""Totalling per-example training statistics held in a dict by summing every entry over the batch axis with jax.tree.map, where one entry (the regulariser penalty) is already a single scalar."""

URL = "https://github.com/jax-ml/jax/issues/14625"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''stats = {
    "sq_error": jnp.array([0.25, 1.0, 0.04, 0.36]),          # one per example
    "class_hits": jnp.array([[1.0, 0.0, 0.0],
                             [0.0, 1.0, 0.0],
                             [0.0, 1.0, 0.0],
                             [0.0, 0.0, 1.0]]),            # one row per example
    "penalty": jnp.float32(0.125),                          # already aggregated
}

def batch_total(x):
    return jnp.sum(x, axis=0)''',
    "totals = jax.tree.map(batch_total, stats)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''stats = {
    "sq_error": jnp.array([0.25, 1.0, 0.04, 0.36]),          # one per example
    "class_hits": jnp.array([[1.0, 0.0, 0.0],
                             [0.0, 1.0, 0.0],
                             [0.0, 1.0, 0.0],
                             [0.0, 0.0, 1.0]]),            # one row per example
    "penalty": jnp.float32(0.125),                          # already aggregated
}

def batch_total(x):
    # a 0-d entry has no axis 0 in JAX; view it as a batch of one
    return jnp.sum(jnp.atleast_1d(x), axis=0)''',
    "totals = jax.tree.map(batch_total, stats)",
)
CHECK = ("np.isclose(float(totals['sq_error']), 1.65) and np.allclose(np.asarray(totals['class_hits']), [1.0, 2.0, 1.0]) "
         "and np.isclose(float(totals['penalty']), 0.125) and np.shape(totals['penalty']) == ()")
