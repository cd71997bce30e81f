"""Drawing one 32-bit seed per data-loader worker with jax.random.randint over the whole unsigned 32-bit range, passing the upper bound as a Python int."""

URL = "https://github.com/jax-ml/jax/issues/18766"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''UINT32_TOP = int(np.iinfo(np.uint32).max)   # 4294967295
n_workers = 6
root = jax.random.key(2024)

def worker_seeds(key, n):
    # one unsigned 32-bit seed per loader worker
    return jax.random.randint(key, (n,), minval=0, maxval=UINT32_TOP, dtype=jnp.uint32)''',
    "seeds = worker_seeds(root, n_workers)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''UINT32_TOP = int(np.iinfo(np.uint32).max)   # 4294967295
n_workers = 6
root = jax.random.key(2024)

def worker_seeds(key, n):
    # one unsigned 32-bit seed per loader worker
    return jax.random.randint(key, (n,), minval=0, maxval=jnp.uint32(UINT32_TOP), dtype=jnp.uint32)''',
    "seeds = worker_seeds(root, n_workers)",
)
CHECK = "seeds.dtype == jnp.uint32 and seeds.shape == (6,) and bool((np.asarray(seeds, dtype=np.uint64) < 4294967295).all()) and len(set(np.asarray(seeds).tolist())) == 6 and bool((np.asarray(seeds, dtype=np.uint64) >= 2**31).any())"
