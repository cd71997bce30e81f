"""Computing, inside a jitted function, the entropy of every other state's categorical policy by indexing a batched distribution."""

URL = "https://github.com/google-deepmind/distrax/issues/291"
KIND = "fix"
CELLS = (
    'import jax, jax.numpy as jnp\nimport numpy as np',
    '''def to_batch_shape_index(batch_shape, index):
    """Turn an index into the batch dimensions into explicit per-axis index arrays."""
    return tuple(grid[index] for grid in np.indices(batch_shape))

class Categorical:
    """Stand-in for a distrax-style Categorical that supports indexing its batch."""
    def __init__(self, logits):
        self.logits = logits

    @property
    def batch_shape(self):
        return self.logits.shape[:-1]

    def __getitem__(self, index):
        return Categorical(self.logits[to_batch_shape_index(self.batch_shape, index)])

    def entropy(self):
        logp = jax.nn.log_softmax(self.logits, axis=-1)
        return -jnp.sum(jnp.exp(logp) * logp, axis=-1)

def even_state_entropy(logits):
    policy = Categorical(logits)
    even = jnp.arange(0, logits.shape[0], 2)
    return policy[even].entropy()

logits = jnp.array([[0.2, -1.0, 1.5],
                    [2.0, 0.0, -0.5],
                    [-0.3, 0.3, 0.9],
                    [1.1, 1.1, -2.0],
                    [0.0, 3.0, 0.5],
                    [-1.2, 0.4, 0.4]])
print(even_state_entropy(logits))''',
    'ent = jax.jit(even_state_entropy)(logits)',
)
FIXED = (
    'import jax, jax.numpy as jnp\nimport numpy as np',
    '''def to_batch_shape_index(batch_shape, index):
    """Turn an index into the batch dimensions into explicit per-axis index arrays."""
    return tuple(grid[index] for grid in jnp.indices(batch_shape))

class Categorical:
    """Stand-in for a distrax-style Categorical that supports indexing its batch."""
    def __init__(self, logits):
        self.logits = logits

    @property
    def batch_shape(self):
        return self.logits.shape[:-1]

    def __getitem__(self, index):
        return Categorical(self.logits[to_batch_shape_index(self.batch_shape, index)])

    def entropy(self):
        logp = jax.nn.log_softmax(self.logits, axis=-1)
        return -jnp.sum(jnp.exp(logp) * logp, axis=-1)

def even_state_entropy(logits):
    policy = Categorical(logits)
    even = jnp.arange(0, logits.shape[0], 2)
    return policy[even].entropy()

logits = jnp.array([[0.2, -1.0, 1.5],
                    [2.0, 0.0, -0.5],
                    [-0.3, 0.3, 0.9],
                    [1.1, 1.1, -2.0],
                    [0.0, 3.0, 0.5],
                    [-1.2, 0.4, 0.4]])
print(even_state_entropy(logits))''',
    'ent = jax.jit(even_state_entropy)(logits)',
)
CHECK = ("ent.shape == (3,) and np.allclose(np.asarray(ent), "
         "[-np.sum(np.exp(l - np.log(np.exp(l).sum())) * (l - np.log(np.exp(l).sum()))) "
         "for l in np.array([[0.2, -1.0, 1.5], [-0.3, 0.3, 0.9], [0.0, 3.0, 0.5]])], atol=1e-5)")
