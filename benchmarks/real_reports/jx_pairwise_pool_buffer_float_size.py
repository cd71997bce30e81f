"""Average-pooling a signal by pairs into an accumulator whose length is computed as half the signal length with the / operator."""

URL = "https://github.com/jax-ml/jax/issues/1822"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    "signal = jnp.array([3.0, 5.0, 2.0, 8.0, -1.0, 1.0, 4.0, 4.0])",
    '''acc = jnp.zeros(len(signal) / 2)
for k in range(2):
    acc = acc + signal[k::2]
pooled = acc / 2''',
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    "signal = jnp.array([3.0, 5.0, 2.0, 8.0, -1.0, 1.0, 4.0, 4.0])",
    '''acc = jnp.zeros(len(signal) // 2)
for k in range(2):
    acc = acc + signal[k::2]
pooled = acc / 2''',
)
CHECK = "pooled.shape == (4,) and np.allclose(np.asarray(pooled), np.array([3.0, 5.0, 2.0, 8.0, -1.0, 1.0, 4.0, 4.0]).reshape(4, 2).mean(axis=1))"
