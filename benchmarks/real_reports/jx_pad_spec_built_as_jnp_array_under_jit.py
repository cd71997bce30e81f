"""Zero-padding the last (feature) axis of a batch of readings inside a jitted function, building the pad-width table NumPy-style as a zeros array whose last row is then set."""

URL = "https://github.com/jax-ml/jax/issues/3620"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''from functools import partial

@partial(jax.jit, static_argnums=1)
def pad_feature_axis(batch, extra):
    spec = jnp.zeros((batch.ndim, 2), dtype=jnp.int32)
    spec = spec.at[-1, 1].set(extra)
    return jnp.pad(batch, spec, constant_values=0.0)

readings = jnp.arange(12.0).reshape(3, 4)''',
    "padded = pad_feature_axis(readings, 2)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''from functools import partial

@partial(jax.jit, static_argnums=1)
def pad_feature_axis(batch, extra):
    spec = np.zeros((batch.ndim, 2), dtype=np.int32)
    spec[-1, 1] = extra
    return jnp.pad(batch, spec.tolist(), constant_values=0.0)

readings = jnp.arange(12.0).reshape(3, 4)''',
    "padded = pad_feature_axis(readings, 2)",
)
CHECK = "padded.shape == (3, 6) and np.array_equal(np.asarray(padded), np.pad(np.arange(12.0).reshape(3, 4), ((0, 0), (0, 2))))"
