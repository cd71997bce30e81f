"""Combining a bright-pixel cloud mask and a cold-pixel mask, both built as 0.0/1.0 float arrays with jnp.where, to get the fraction of clear pixels in a small satellite tile."""

URL = "https://github.com/jax-ml/jax/issues/2053"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''reflectance = jnp.array([[0.91, 0.22, 0.78],
                         [0.12, 0.86, 0.31]])
brightness_temp = jnp.array([[248.0, 291.0, 284.0],
                             [239.0, 262.0, 296.0]])   # kelvin

bright = jnp.where(reflectance > 0.7, 1.0, 0.0)
cold = jnp.where(brightness_temp < 255.0, 1.0, 0.0)''',
    "flagged = bright | cold\nclear_fraction = 1.0 - flagged.mean()",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''reflectance = jnp.array([[0.91, 0.22, 0.78],
                         [0.12, 0.86, 0.31]])
brightness_temp = jnp.array([[248.0, 291.0, 284.0],
                             [239.0, 262.0, 296.0]])   # kelvin

bright = jnp.where(reflectance > 0.7, 1.0, 0.0)
cold = jnp.where(brightness_temp < 255.0, 1.0, 0.0)''',
    "flagged = jnp.logical_or(bright, cold)\nclear_fraction = 1.0 - flagged.mean()",
)
CHECK = "np.array_equal(np.asarray(flagged), np.logical_or(np.array([[0.91, 0.22, 0.78], [0.12, 0.86, 0.31]]) > 0.7, np.array([[248.0, 291.0, 284.0], [239.0, 262.0, 296.0]]) < 255.0)) and abs(float(clear_fraction) - 2.0 / 6.0) < 1e-6"
