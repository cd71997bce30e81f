"""Vectorizing a per-row power computation over a dict of batched sensor readings, passing the dict axis spec directly as in_axes."""

URL = "https://github.com/jax-ml/jax/issues/18548"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def row_power(reading):
    return jnp.sum(reading["volts"] * reading["amps"])

readings = {
    "volts": jnp.arange(12.0).reshape(4, 3),
    "amps": jnp.linspace(0.5, 2.0, 12).reshape(4, 3),
}''',
    'power = jax.vmap(row_power, in_axes={"volts": 0, "amps": 0})(readings)',
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def row_power(reading):
    return jnp.sum(reading["volts"] * reading["amps"])

readings = {
    "volts": jnp.arange(12.0).reshape(4, 3),
    "amps": jnp.linspace(0.5, 2.0, 12).reshape(4, 3),
}''',
    'power = jax.vmap(row_power, in_axes=({"volts": 0, "amps": 0},))(readings)',
)
CHECK = "power.shape == (4,) and np.allclose(np.asarray(power), (np.arange(12.0).reshape(4, 3) * np.linspace(0.5, 2.0, 12).reshape(4, 3)).sum(axis=1), rtol=1e-5)"
