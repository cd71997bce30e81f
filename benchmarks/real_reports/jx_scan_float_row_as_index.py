"""Scanning over rows that mix an integer slot id with a float value, then indexing a table with the slot id."""

URL = "https://github.com/jax-ml/jax/issues/2486"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    '''weights = jnp.array([0.5, 2.0])
# column 0 is a slot id, column 1 a measurement; the whole array becomes float
data = jnp.array([[0, 1.5], [1, 3.0], [1, 0.5]])''',
    '''def total(data):
    def step(acc, row):
        return acc + weights[row[0]] * row[1], None
    acc, _ = jax.lax.scan(step, 0.0, data)
    return acc''',
    "loss = jax.jit(total)(data)",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    '''weights = jnp.array([0.5, 2.0])
data = jnp.array([[0, 1.5], [1, 3.0], [1, 0.5]])''',
    '''def total(data):
    def step(acc, row):
        return acc + weights[row[0].astype(jnp.int32)] * row[1], None
    acc, _ = jax.lax.scan(step, 0.0, data)
    return acc''',
    "loss = jax.jit(total)(data)",
)
CHECK = "abs(float(loss) - 7.75) < 1e-5"
