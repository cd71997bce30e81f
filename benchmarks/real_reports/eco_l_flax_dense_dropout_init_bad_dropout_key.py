"""Initialising a small flax-linen-style dense layer with dropout in training mode, passing separate params and dropout keys that were split from one seed."""

URL = "https://github.com/google/flax/issues/511"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import random",
    '''class DenseDropout:
    """Tiny stand-in for a linen module: Dense(features) followed by Dropout(rate).
    Like linen's make_rng, each rng stream is folded with the layer's name hash."""
    def __init__(self, features, rate):
        self.features, self.rate = features, rate

    def init_with_output(self, rngs, x):
        w_key = random.fold_in(rngs["params"], 0)
        params = {"kernel": random.normal(w_key, (x.shape[-1], self.features)) / np.sqrt(x.shape[-1]),
                  "bias": jnp.zeros(self.features)}
        y = x @ params["kernel"] + params["bias"]
        drop_key = random.fold_in(rngs["dropout"], 1)
        keep = random.bernoulli(drop_key, 1.0 - self.rate, y.shape)
        return jnp.where(keep, y / (1.0 - self.rate), 0.0), {"params": params}

x = jnp.linspace(-1.0, 1.0, 4 * 6).reshape(4, 6)
key1, key2, key3 = random.split(random.PRNGKey(0), 3)
bad_key = random.split(random.PRNGKey(0), 2)
layer = DenseDropout(features=5, rate=0.3)''',
    "y, variables = layer.init_with_output({'params': key1, 'dropout': bad_key}, x)",
)
FIXED = (
    CELLS[0],
    CELLS[1],
    "y, variables = layer.init_with_output({'params': key1, 'dropout': key3}, x)",
)
CHECK = ("(lambda k1, k3, X: (lambda W, keep: y.shape == (4, 5) and np.allclose(np.asarray(variables['params']['kernel']), W, atol=1e-6) and "
         "np.allclose(np.asarray(y), np.where(keep, (X @ W) / 0.7, 0.0), atol=1e-5))("
         "np.asarray(random.normal(random.fold_in(k1, 0), (6, 5))) / np.sqrt(6), np.asarray(random.bernoulli(random.fold_in(k3, 1), 0.7, (4, 5)))))("
         "*[random.split(random.PRNGKey(0), 3)[i] for i in (0, 2)], np.linspace(-1.0, 1.0, 24).reshape(4, 6))")
