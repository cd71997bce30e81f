"""Appending a StyleGAN2-style minibatch standard-deviation feature map to discriminator activations, with the reshapes written using the keyword form copied from older flaxmodels code."""

URL = "https://github.com/matthias-wright/flaxmodels/pull/42"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def minibatch_stddev(x, group_size=2, num_features=1):
    n, h, w, c = x.shape
    g = min(group_size, n)
    y = jnp.reshape(x, newshape=(g, -1, h, w, num_features, c // num_features))
    y = y - jnp.mean(y, axis=0)
    y = jnp.sqrt(jnp.mean(jnp.square(y), axis=0) + 1e-8)
    y = jnp.mean(y, axis=(1, 2, 4))
    y = jnp.reshape(y, newshape=(-1, 1, 1, num_features))
    y = jnp.tile(y, (g, h, w, 1))
    return jnp.concatenate((x, y), axis=3)

acts = jnp.arange(4 * 3 * 3 * 2, dtype=jnp.float32).reshape(4, 3, 3, 2) % 5 / 4.0''',
    "out = minibatch_stddev(acts)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def minibatch_stddev(x, group_size=2, num_features=1):
    n, h, w, c = x.shape
    g = min(group_size, n)
    y = jnp.reshape(x, (g, -1, h, w, num_features, c // num_features))
    y = y - jnp.mean(y, axis=0)
    y = jnp.sqrt(jnp.mean(jnp.square(y), axis=0) + 1e-8)
    y = jnp.mean(y, axis=(1, 2, 4))
    y = jnp.reshape(y, (-1, 1, 1, num_features))
    y = jnp.tile(y, (g, h, w, 1))
    return jnp.concatenate((x, y), axis=3)

acts = jnp.arange(4 * 3 * 3 * 2, dtype=jnp.float32).reshape(4, 3, 3, 2) % 5 / 4.0''',
    "out = minibatch_stddev(acts)",
)
CHECK = ("(lambda a: out.shape == (4, 3, 3, 3) and np.allclose(np.asarray(out[..., :2]), a) and "
         "np.allclose(np.asarray(out[..., 2]), np.tile(np.sqrt(a.reshape(2, 2, 3, 3, 2).var(axis=0) + 1e-8)"
         ".mean(axis=(1, 2, 3))[:, None, None], (2, 3, 3)), atol=1e-5))"
         "(np.arange(72, dtype=np.float64).reshape(4, 3, 3, 2) % 5 / 4.0)")
