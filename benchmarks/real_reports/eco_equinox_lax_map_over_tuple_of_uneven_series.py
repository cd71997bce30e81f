"""Summing a per-dataset loss over several measurement series of different lengths kept as a tuple of small dataclass containers, by mapping the loss over the tuple."""

URL = "https://github.com/patrick-kidger/equinox/issues/1079"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom dataclasses import dataclass",
    '''@jax.tree_util.register_dataclass
@dataclass
class Series:
    values: jax.Array
    times: jax.Array

def series_loss(s):
    return jnp.mean((s.values - 0.5 * s.times) ** 2)

runs = (
    Series(values=jnp.array([1.0, 2.0, 4.0]), times=jnp.array([0.0, 1.0, 2.0])),
    Series(values=jnp.array([0.5, 1.5]), times=jnp.array([0.0, 4.0])),
    Series(values=jnp.array([3.0, 3.0, 2.0, 0.0, 1.0]), times=jnp.arange(5.0)),
)''',
    '''per_run = jax.lax.map(series_loss, runs)
total = per_run.sum()''',
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom dataclasses import dataclass",
    '''@jax.tree_util.register_dataclass
@dataclass
class Series:
    values: jax.Array
    times: jax.Array

def series_loss(s):
    return jnp.mean((s.values - 0.5 * s.times) ** 2)

runs = (
    Series(values=jnp.array([1.0, 2.0, 4.0]), times=jnp.array([0.0, 1.0, 2.0])),
    Series(values=jnp.array([0.5, 1.5]), times=jnp.array([0.0, 4.0])),
    Series(values=jnp.array([3.0, 3.0, 2.0, 0.0, 1.0]), times=jnp.arange(5.0)),
)''',
    '''per_run = jnp.stack([series_loss(s) for s in runs])
total = per_run.sum()''',
)
CHECK = ("per_run.shape == (3,)"
         " and np.allclose(np.asarray(per_run), [np.mean((np.array([1.0, 2.0, 4.0]) - 0.5 * np.array([0.0, 1.0, 2.0])) ** 2),"
         " np.mean((np.array([0.5, 1.5]) - 0.5 * np.array([0.0, 4.0])) ** 2), np.mean((np.array([3.0, 3.0, 2.0, 0.0, 1.0]) - 0.5 * np.arange(5.0)) ** 2)], atol=1e-6)"
         " and abs(float(total) - (12.25 / 3.0 + 0.25 + 19.5 / 5.0)) < 1e-5")
