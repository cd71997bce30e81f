"""Initialising a small haiku-style layer and applying it to every example of a batch in one vmapped init-and-apply call, with the parameters meant to be shared across the batch and the random key split per example."""

URL = "https://github.com/google-deepmind/dm-haiku/issues/458"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def init(rng, x):
    """haiku-style init for ONE example x of shape (features,)."""
    w_key, _ = jax.random.split(rng)
    return {"w": 0.5 * jax.random.normal(w_key, (x.shape[-1], 4)), "b": jnp.full((4,), 0.1)}

def apply(params, x):
    return jnp.tanh(x @ params["w"] + params["b"])

def init_and_apply(rng, x):
    params = init(rng, x)
    return params, apply(params, x)

xs = jnp.linspace(-1.0, 1.0, 6 * 3).reshape(6, 3)     # 6 examples, 3 features
rng = jax.random.key(42)''',
    '''rngs = jax.random.split(rng, xs.shape[0])          # split_rng=True
params, ys = jax.vmap(init_and_apply, in_axes=(0, 0), out_axes=(None, 0))(rngs, xs)''',
)
FIXED = (
    CELLS[0],
    CELLS[1],
    '''# split_rng=False: the same key for every example, so the parameters are shared
params, ys = jax.vmap(init_and_apply, in_axes=(None, 0), out_axes=(None, 0))(rng, xs)''',
)
CHECK = ("(lambda W: ys.shape == (6, 4) and np.allclose(np.asarray(params['w']), W, atol=1e-6) and "
         "np.allclose(np.asarray(ys), np.tanh(np.linspace(-1.0, 1.0, 18).reshape(6, 3) @ W + 0.1), atol=1e-5))("
         "0.5 * np.asarray(jax.random.normal(jax.random.split(jax.random.key(42))[0], (3, 4))))")
