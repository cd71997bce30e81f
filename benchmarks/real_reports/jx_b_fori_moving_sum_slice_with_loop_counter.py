"""Computing a three-sample moving sum of a short signal inside lax.fori_loop, cutting each window out with ordinary slicing x[i:i + W] at the loop counter."""

URL = "https://github.com/jax-ml/jax/issues/7222"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''signal = jnp.array([1.0, 3.0, 2.0, 5.0, 4.0, 0.0, 2.0, 6.0])
W = 3

def moving_sums(x):
    n_out = x.shape[0] - W + 1
    def body(i, out):
        return out.at[i].set(x[i:i + W].sum())
    return jax.lax.fori_loop(0, n_out, body, jnp.zeros(n_out))''',
    "sums = moving_sums(signal)",
)
FIXED = (
    CELLS[0],
    '''signal = jnp.array([1.0, 3.0, 2.0, 5.0, 4.0, 0.0, 2.0, 6.0])
W = 3

def moving_sums(x):
    n_out = x.shape[0] - W + 1
    def body(i, out):
        return out.at[i].set(jax.lax.dynamic_slice(x, (i,), (W,)).sum())
    return jax.lax.fori_loop(0, n_out, body, jnp.zeros(n_out))''',
    CELLS[2],
)
CHECK = ("np.allclose(np.asarray(sums), np.convolve(np.array([1.0, 3.0, 2.0, 5.0, 4.0, 0.0, 2.0, 6.0]), "
         "np.ones(3), mode='valid'), atol=1e-5)")
