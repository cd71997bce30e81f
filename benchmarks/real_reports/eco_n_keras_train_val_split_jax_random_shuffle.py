"""Shuffling example indices with jax.random.shuffle (as the Keras JAX backend's shuffle used to) before splitting a small labelled dataset into training and validation parts."""

URL = "https://github.com/keras-team/keras/issues/19271"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''X = jnp.arange(20.0).reshape(10, 2)
y = jnp.array([0, 1, 0, 1, 1, 0, 0, 1, 0, 1])
key = jax.random.key(42)
n_val = 3''',
    '''idx = jax.random.shuffle(key, jnp.arange(X.shape[0]), axis=0)
X_shuf, y_shuf = X[idx], y[idx]
X_train, y_train = X_shuf[n_val:], y_shuf[n_val:]
X_val, y_val = X_shuf[:n_val], y_shuf[:n_val]''',
)
FIXED = (
    CELLS[0],
    CELLS[1],
    '''idx = jax.random.permutation(key, jnp.arange(X.shape[0]), axis=0, independent=True)
X_shuf, y_shuf = X[idx], y[idx]
X_train, y_train = X_shuf[n_val:], y_shuf[n_val:]
X_val, y_val = X_shuf[:n_val], y_shuf[:n_val]''',
)
CHECK = ("(lambda i: sorted(i.tolist()) == list(range(10)) "
         "and np.array_equal(np.asarray(X_shuf), np.arange(20.0).reshape(10, 2)[i]) "
         "and np.array_equal(np.asarray(y_shuf), np.array([0, 1, 0, 1, 1, 0, 0, 1, 0, 1])[i]) "
         "and X_train.shape == (7, 2) and X_val.shape == (3, 2) and y_val.shape == (3,))(np.asarray(idx))")
