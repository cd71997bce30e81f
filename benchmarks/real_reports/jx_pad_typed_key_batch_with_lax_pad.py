"""Padding a batch of 10 per-example typed PRNG keys up to 12 with zero keys so the per-example noise draws can be reshaped into 3 chunks of 4."""

URL = "https://github.com/jax-ml/jax/issues/37484"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''example_keys = jax.random.split(jax.random.key(7), 10)

def draw(key):
    return jax.random.uniform(key)''',
    '''padded_keys = jax.lax.pad(example_keys, 0, ((0, 2, 0),))
noise = jax.vmap(draw)(padded_keys).reshape(3, 4)''',
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''example_keys = jax.random.split(jax.random.key(7), 10)

def draw(key):
    return jax.random.uniform(key)''',
    '''padded_keys = jax.random.wrap_key_data(
    jax.lax.pad(jax.random.key_data(example_keys), jnp.uint32(0), ((0, 2, 0), (0, 0, 0))))
noise = jax.vmap(draw)(padded_keys).reshape(3, 4)''',
)
CHECK = "noise.shape == (3, 4) and np.allclose(np.asarray(noise).ravel()[:10], np.array([float(jax.random.uniform(k)) for k in jax.random.split(jax.random.key(7), 10)])) and np.allclose(np.asarray(noise).ravel()[10:], float(jax.random.uniform(jax.random.key(0))))"
