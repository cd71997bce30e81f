"""Computing inverse-frequency class weights for a weighted loss from integer label counts, writing the reciprocal as counts ** -1."""

URL = "https://github.com/jax-ml/jax/pull/5419"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''labels = jnp.array([0, 2, 2, 1, 2, 0, 2, 2, 1, 2])
counts = jnp.bincount(labels, length=3)''',
    '''inv = counts ** -1
class_weight = inv / inv.sum()''',
)
FIXED = (
    CELLS[0],
    CELLS[1],
    '''inv = counts.astype(jnp.float32) ** -1
class_weight = inv / inv.sum()''',
)
CHECK = ("(lambda c: np.allclose(np.asarray(class_weight), (1.0 / c) / (1.0 / c).sum(), atol=1e-6))"
         "(np.array([2.0, 2.0, 6.0]))")
