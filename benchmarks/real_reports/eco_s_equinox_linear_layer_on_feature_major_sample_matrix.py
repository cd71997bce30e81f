"""Applying a single-sample linear layer (weight @ x + bias, equinox style) to a whole matrix of samples stored one sample per column."""

URL = "https://github.com/patrick-kidger/equinox/issues/205"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''class Linear:
    """Minimal stand-in for an equinox-style Linear layer: acts on ONE input vector."""
    def __init__(self, in_features, out_features, key):
        wkey, bkey = jax.random.split(key)
        self.weight = jax.random.normal(wkey, (out_features, in_features)) / jnp.sqrt(in_features)
        self.bias = jax.random.normal(bkey, (out_features,))

    def __call__(self, x):
        return self.weight @ x + self.bias

layer = Linear(6, 4, jax.random.key(3))
# 50 samples with 6 features each, stored feature-major: column j is sample j
samples = jnp.linspace(-1.0, 1.0, 6 * 50).reshape(6, 50)''',
    "out = layer(samples)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    CELLS[1],
    "out = jax.vmap(layer, in_axes=1, out_axes=1)(samples)",
)
CHECK = ("out.shape == (4, 50) and np.allclose(np.asarray(out), "
         "np.asarray(layer.weight) @ np.linspace(-1.0, 1.0, 300).reshape(6, 50) + np.asarray(layer.bias)[:, None], atol=1e-4)")
