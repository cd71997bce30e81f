"""Hashing a short sequence of token ids with 32-bit FNV-1a inside lax.scan, putting the FNV offset basis and prime into a JAX array the NumPy way and relying on the values to pick an unsigned type."""

URL = "https://github.com/jax-ml/jax/issues/12375"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nimport functools\nfrom jax import lax",
    '''token_ids = jnp.array([3, 141, 59, 26, 5], dtype=jnp.uint32)

def fnv1a(values, basis, prime):
    def step(h, v):
        return (h ^ v) * prime, None      # wraps modulo 2**32 for uint32
    h, _ = lax.scan(step, basis, values)
    return h''',
    "fnv_consts = jnp.array([2166136261, 16777619])   # offset basis, prime\ndigest = fnv1a(token_ids, fnv_consts[0], fnv_consts[1])",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nimport functools\nfrom jax import lax",
    '''token_ids = jnp.array([3, 141, 59, 26, 5], dtype=jnp.uint32)

def fnv1a(values, basis, prime):
    def step(h, v):
        return (h ^ v) * prime, None      # wraps modulo 2**32 for uint32
    h, _ = lax.scan(step, basis, values)
    return h''',
    "fnv_consts = jnp.array([2166136261, 16777619], dtype=jnp.uint32)   # offset basis, prime\ndigest = fnv1a(token_ids, fnv_consts[0], fnv_consts[1])",
)
CHECK = "digest.dtype == jnp.uint32 and int(digest) == functools.reduce(lambda h, v: ((h ^ v) * 16777619) % 2**32, [3, 141, 59, 26, 5], 2166136261)"
