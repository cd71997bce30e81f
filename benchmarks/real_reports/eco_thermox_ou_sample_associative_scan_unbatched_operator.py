"""Sampling a 2-D Ornstein-Uhlenbeck path on an irregular time grid in parallel by composing the per-step affine transitions with lax.associative_scan instead of a sequential scan."""

URL = "https://github.com/normal-computing/thermox/pull/30"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax\nfrom jax.scipy.linalg import expm",
    '''A = jnp.array([[1.0, 0.3], [-0.3, 0.6]])   # drift matrix: dx = -A x dt + dW
ts = jnp.array([0.0, 0.1, 0.25, 0.3, 0.5, 0.65, 0.7, 0.9])
x0 = jnp.array([1.0, -0.5])

dts = jnp.diff(ts)
Ms = jax.vmap(lambda dt: expm(-A * dt))(dts)                 # (7, 2, 2) transitions
noise = jnp.sqrt(dts)[:, None] * jax.random.normal(jax.random.key(3), (dts.shape[0], 2))

def compose(step_a, step_b):
    # apply step_a then step_b:  x -> Mb (Ma x + ca) + cb
    Ma, ca = step_a
    Mb, cb = step_b
    return Mb @ Ma, Mb @ ca + cb

def sample_path(Ms, noise, x0):
    P, q = lax.associative_scan(compose, (Ms, noise))
    xs = jnp.einsum('nij,j->ni', P, x0) + q
    return jnp.concatenate([x0[None], xs], axis=0)''',
    "path = sample_path(Ms, noise, x0)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax\nfrom jax.scipy.linalg import expm",
    '''A = jnp.array([[1.0, 0.3], [-0.3, 0.6]])   # drift matrix: dx = -A x dt + dW
ts = jnp.array([0.0, 0.1, 0.25, 0.3, 0.5, 0.65, 0.7, 0.9])
x0 = jnp.array([1.0, -0.5])

dts = jnp.diff(ts)
Ms = jax.vmap(lambda dt: expm(-A * dt))(dts)                 # (7, 2, 2) transitions
noise = jnp.sqrt(dts)[:, None] * jax.random.normal(jax.random.key(3), (dts.shape[0], 2))

def compose(step_a, step_b):
    # apply step_a then step_b:  x -> Mb (Ma x + ca) + cb
    Ma, ca = step_a
    Mb, cb = step_b
    return Mb @ Ma, Mb @ ca + cb

def sample_path(Ms, noise, x0):
    P, q = lax.associative_scan(jax.vmap(compose), (Ms, noise))
    xs = jnp.einsum('nij,j->ni', P, x0) + q
    return jnp.concatenate([x0[None], xs], axis=0)''',
    "path = sample_path(Ms, noise, x0)",
)
CHECK = "(lambda M, c: path.shape == (8, 2) and np.allclose(np.asarray(path), np.array(__import__('functools').reduce(lambda acc, mc: acc + [mc[0] @ acc[-1] + mc[1]], zip(M, c), [np.array([1.0, -0.5])])), atol=1e-5))(np.asarray(Ms, dtype=np.float64), np.asarray(noise, dtype=np.float64))"
