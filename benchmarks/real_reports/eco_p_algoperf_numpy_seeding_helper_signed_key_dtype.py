"""Handing keys built by a small NumPy-only seeding helper (a framework-neutral stand-in for jax.random.PRNGKey) to jax.random.uniform to draw dropout noise."""

URL = "https://github.com/mlcommons/algorithmic-efficiency/issues/801"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def numpy_prng_key(seed):
    # framework-neutral key: the same [0, seed] pair a legacy JAX key holds
    return np.array([0, seed], dtype=np.int32)

drop_key = numpy_prng_key(31)''',
    "noise = jax.random.uniform(drop_key, (5,))",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def numpy_prng_key(seed):
    # framework-neutral key: the same [0, seed] pair a legacy JAX key holds
    return np.array([0, seed], dtype=np.uint32)

drop_key = numpy_prng_key(31)''',
    "noise = jax.random.uniform(drop_key, (5,))",
)
CHECK = ("list(np.asarray(drop_key)) == [0, 31] and noise.shape == (5,) "
         "and np.array_equal(np.asarray(noise), np.asarray(jax.random.uniform("
         "np.array([0, 31], dtype=np.uint32), (5,)))) "
         "and bool(np.all((np.asarray(noise) >= 0) & (np.asarray(noise) < 1))) "
         "and np.array_equal(np.asarray(jax.random.key_data(jax.random.key(31))), [0, 31])")
