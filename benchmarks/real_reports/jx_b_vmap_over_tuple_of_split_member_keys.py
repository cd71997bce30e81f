"""Shuffling the order of a small training set independently for each of four ensemble members by vmapping a permutation function over per-member random keys kept in a Python tuple."""

URL = "https://github.com/jax-ml/jax/issues/17747"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''train_idx = jnp.arange(8)

def shuffled_order(key):
    return jax.random.permutation(key, train_idx)

key = jax.random.key(7)
member_keys = tuple(jax.random.split(key, 4))''',
    "orders = jax.vmap(shuffled_order)(member_keys)",
)
FIXED = (
    CELLS[0],
    CELLS[1],
    "orders = jax.vmap(shuffled_order)(jnp.stack(member_keys))",
)
CHECK = ("(lambda o: o.shape == (4, 8) and all(sorted(r.tolist()) == list(range(8)) for r in o) "
         "and len({tuple(r.tolist()) for r in o}) > 1)(np.asarray(orders))")
