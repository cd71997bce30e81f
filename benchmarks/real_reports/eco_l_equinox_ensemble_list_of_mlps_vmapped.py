"""Evaluating an ensemble of eight small equinox-style MLPs, built one by one in a list comprehension, on a batch holding one input per ensemble member with a single vmap."""

URL = "https://github.com/patrick-kidger/equinox/issues/397"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nimport dataclasses",
    '''@jax.tree_util.register_dataclass
@dataclasses.dataclass
class MLP:
    """Minimal stand-in for an equinox MLP (2 -> 5 -> 2) acting on ONE input vector."""
    w1: jax.Array
    b1: jax.Array
    w2: jax.Array
    b2: jax.Array

    def __call__(self, x):
        return self.w2 @ jnp.tanh(self.w1 @ x + self.b1) + self.b2

def make_mlp(key):
    k1, k2, k3 = jax.random.split(key, 3)
    return MLP(jax.random.normal(k1, (5, 2)), 0.1 * jax.random.normal(k2, (5,)),
               jax.random.normal(k3, (2, 5)) / 5 ** 0.5, jnp.zeros(2))

keys = jax.random.split(jax.random.key(7), 8)
ensemble = [make_mlp(k) for k in keys]
xs = jnp.linspace(-1.0, 1.0, 16).reshape(8, 2)        # one input per member

def evaluate_per_member(model, x):
    return model(x)''',
    "outs = jax.vmap(evaluate_per_member)(ensemble, xs)",
)
FIXED = (
    CELLS[0],
    CELLS[1],
    '''stacked = jax.tree.map(lambda *leaves: jnp.stack(leaves), *ensemble)   # one MLP with a leading ensemble axis
outs = jax.vmap(evaluate_per_member)(stacked, xs)''',
)
CHECK = ("outs.shape == (8, 2) and np.allclose(np.asarray(outs), np.stack([np.asarray(m.w2) @ np.tanh(np.asarray(m.w1) @ x + np.asarray(m.b1)) "
         "+ np.asarray(m.b2) for m, x in zip(ensemble, np.linspace(-1.0, 1.0, 16).reshape(8, 2))]), atol=1e-5)")
