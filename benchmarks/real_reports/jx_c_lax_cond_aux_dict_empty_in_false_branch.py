"""Computing a regularised loss together with a dict of its parts only on every fifth step, returning an empty dict from the skipped branch of lax.cond."""

URL = "https://github.com/jax-ml/jax/issues/2660"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''w = jnp.array([0.5, -1.0, 2.0])
x = jnp.array([[1.0, 2.0, 0.0], [0.0, 1.0, 1.0], [2.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
y = jnp.array([1.0, 0.5, 2.5, 1.0])

def loss_with_parts(w):
    resid = x @ w - y
    mse = jnp.mean(resid ** 2)
    l2 = 0.1 * jnp.sum(w ** 2)
    return mse + l2, {"mse": mse, "l2": l2}

def skipped(w):
    return 0.0, {}

@jax.jit
def maybe_evaluate(step, w):
    return lax.cond(step % 5 == 0, loss_with_parts, skipped, w)''',
    "total, parts = maybe_evaluate(10, w)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''w = jnp.array([0.5, -1.0, 2.0])
x = jnp.array([[1.0, 2.0, 0.0], [0.0, 1.0, 1.0], [2.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
y = jnp.array([1.0, 0.5, 2.5, 1.0])

def loss_with_parts(w):
    resid = x @ w - y
    mse = jnp.mean(resid ** 2)
    l2 = 0.1 * jnp.sum(w ** 2)
    return mse + l2, {"mse": mse, "l2": l2}

def skipped(w):
    return 0.0, {"mse": 0.0, "l2": 0.0}

@jax.jit
def maybe_evaluate(step, w):
    return lax.cond(step % 5 == 0, loss_with_parts, skipped, w)''',
    "total, parts = maybe_evaluate(10, w)",
)
CHECK = ("abs(float(total) - (np.mean((np.array([[1.,2,0],[0,1,1],[2,0,1],[1,1,1]]) @ np.array([0.5,-1,2]) - np.array([1,0.5,2.5,1]))**2) + 0.1*5.25)) < 1e-5"
         " and abs(float(parts['l2']) - 0.525) < 1e-6 and float(maybe_evaluate(3, w)[0]) == 0.0")
