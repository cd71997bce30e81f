"""Taking a jitted SGD step on a parameter dict that also holds an integer array of feature-column indices, using jax.grad(allow_int=True) and updating every leaf with p - lr * g."""

URL = "https://github.com/jax-ml/jax/issues/12339"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''feature_table = jnp.array([0.8, 0.9, 1.1])
params = {"w": jnp.array([0.5, -0.3]), "cols": jnp.array([2, 0])}

def loss(params):
    feats = feature_table[params["cols"]]
    return jnp.sum((params["w"] * feats - 1.0) ** 2)

@jax.jit
def sgd_step(params, lr):
    g = jax.grad(loss, allow_int=True)(params)
    return jax.tree.map(lambda p, gp: p - lr * gp, params, g)''',
    "new_params = sgd_step(params, 0.1)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''feature_table = jnp.array([0.8, 0.9, 1.1])
params = {"w": jnp.array([0.5, -0.3]), "cols": jnp.array([2, 0])}

def loss(params):
    feats = feature_table[params["cols"]]
    return jnp.sum((params["w"] * feats - 1.0) ** 2)

@jax.jit
def sgd_step(params, lr):
    g = jax.grad(loss, allow_int=True)(params)
    # integer leaves get float0 "gradients": leave those leaves unchanged
    return jax.tree.map(lambda p, gp: p - lr * gp if jnp.issubdtype(p.dtype, jnp.inexact) else p, params, g)''',
    "new_params = sgd_step(params, 0.1)",
)
CHECK = ("(lambda w, f: np.allclose(np.asarray(new_params['w']), w - 0.1 * 2 * (w * f - 1.0) * f, atol=1e-6))"
         "(np.array([0.5, -0.3]), np.array([1.1, 0.8])) "
         "and np.array_equal(np.asarray(new_params['cols']), [2, 0]) and new_params['cols'].dtype == jnp.int32")
