"""Vectorising jax.nn.one_hot with jax.vmap over a batch of labels while also handing it a per-example column holding the class count."""

URL = "https://github.com/jax-ml/jax/issues/3696"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''labels = jnp.array([2, 0, 3, 1, 3])
num_classes = 4
class_counts = jnp.full(labels.shape, num_classes)''',
    "encoded = jax.vmap(jax.nn.one_hot)(labels, class_counts)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''labels = jnp.array([2, 0, 3, 1, 3])
num_classes = 4
class_counts = jnp.full(labels.shape, num_classes)''',
    "encoded = jax.vmap(jax.nn.one_hot, in_axes=(0, None))(labels, num_classes)",
)
CHECK = ("encoded.shape == (5, 4) and np.allclose(np.asarray(encoded), "
         "np.eye(4)[[2, 0, 3, 1, 3]])")
