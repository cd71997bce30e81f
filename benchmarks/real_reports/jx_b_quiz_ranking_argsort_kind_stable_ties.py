"""Ranking quiz players by score from highest to lowest with a stable sort, so that tied players keep their sign-up order, using argsort's NumPy kind='mergesort' option."""

URL = "https://github.com/jax-ml/jax/pull/19220"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''players = ["ana", "ben", "cai", "dee", "eli", "fay"]
scores = jnp.array([7, 9, 7, 10, 9, 7])''',
    '''order = jnp.argsort(-scores, kind="mergesort")
leaderboard = [players[i] for i in order.tolist()]''',
)
FIXED = (
    CELLS[0],
    CELLS[1],
    '''order = jnp.argsort(-scores, stable=True)
leaderboard = [players[i] for i in order.tolist()]''',
)
CHECK = ("np.array_equal(np.asarray(order), np.argsort(-np.array([7, 9, 7, 10, 9, 7]), kind='stable')) "
         "and leaderboard == ['dee', 'ben', 'eli', 'ana', 'cai', 'fay']")
