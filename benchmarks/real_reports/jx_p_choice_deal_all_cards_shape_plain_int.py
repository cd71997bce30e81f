"""Shuffling a small deck of card values by drawing every card without replacement with jax.random.choice, giving the number of draws as a plain integer like NumPy's size argument."""

URL = "https://github.com/jax-ml/jax/issues/4124"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''deck = jnp.array([2, 3, 5, 7, 11, 13, 17, 19])
deal_key = jax.random.key(8)''',
    "hand = jax.random.choice(deal_key, deck, deck.shape[0], replace=False)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''deck = jnp.array([2, 3, 5, 7, 11, 13, 17, 19])
deal_key = jax.random.key(8)''',
    "hand = jax.random.choice(deal_key, deck, (deck.shape[0],), replace=False)",
)
CHECK = "hand.shape == (8,) and np.array_equal(np.sort(np.asarray(hand)), np.array([2, 3, 5, 7, 11, 13, 17, 19]))"
