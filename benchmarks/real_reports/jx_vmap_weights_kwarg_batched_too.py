"""Scoring every row of a batch of feature vectors against one shared weight vector with jax.vmap, handing the weights to the vmapped function as a keyword argument."""

URL = "https://github.com/jax-ml/jax/issues/24406"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def score(features, weights):
    return jnp.tanh(features @ weights)

batch = jnp.arange(15.0).reshape(5, 3) / 10.0
weights = jnp.array([0.5, -1.0, 2.0])''',
    "scores = jax.vmap(score)(batch, weights=weights)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def score(features, weights):
    return jnp.tanh(features @ weights)

batch = jnp.arange(15.0).reshape(5, 3) / 10.0
weights = jnp.array([0.5, -1.0, 2.0])''',
    "scores = jax.vmap(score, in_axes=(0, None))(batch, weights)",
)
CHECK = "scores.shape == (5,) and np.allclose(np.asarray(scores), np.tanh((np.arange(15.0).reshape(5, 3) / 10.0) @ np.array([0.5, -1.0, 2.0])), atol=1e-5)"
