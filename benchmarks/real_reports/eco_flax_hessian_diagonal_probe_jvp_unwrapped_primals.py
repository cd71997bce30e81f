"""Estimating the Hessian diagonal of a loss over a parameter dict with Hutchinson's trick (Hessian-vector products with a Rademacher probe) for an AdaHessian-style optimiser."""

URL = "https://github.com/google/flax/issues/580"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''curv = jnp.array([1.0, 2.0, 3.0])

def loss(params):
    w, b = params["w"], params["b"]
    return 0.5 * jnp.sum(curv * w ** 2) + 2.0 * b ** 2 + b * jnp.sum(w)

params = {"w": jnp.array([0.3, -0.2, 0.5]), "b": jnp.array(0.1)}
k_w, k_b = jax.random.split(jax.random.key(7))
probe = {"w": jax.random.rademacher(k_w, (3,), dtype=jnp.float32),
         "b": jax.random.rademacher(k_b, (), dtype=jnp.float32)}

def hvp(params, v):
    return jax.jvp(jax.grad(loss), params, v)[1]''',
    "diag_estimate = jax.tree.map(lambda z, hz: z * hz, probe, hvp(params, probe))",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''curv = jnp.array([1.0, 2.0, 3.0])

def loss(params):
    w, b = params["w"], params["b"]
    return 0.5 * jnp.sum(curv * w ** 2) + 2.0 * b ** 2 + b * jnp.sum(w)

params = {"w": jnp.array([0.3, -0.2, 0.5]), "b": jnp.array(0.1)}
k_w, k_b = jax.random.split(jax.random.key(7))
probe = {"w": jax.random.rademacher(k_w, (3,), dtype=jnp.float32),
         "b": jax.random.rademacher(k_b, (), dtype=jnp.float32)}

def hvp(params, v):
    return jax.jvp(jax.grad(loss), (params,), (v,))[1]''',
    "diag_estimate = jax.tree.map(lambda z, hz: z * hz, probe, hvp(params, probe))",
)
CHECK = ("(lambda zw, zb: np.allclose(np.asarray(diag_estimate['w']), zw * (np.array([1.0, 2.0, 3.0]) * zw + zb), atol=1e-6)"
         " and abs(float(diag_estimate['b']) - zb * (zw.sum() + 4.0 * zb)) < 1e-6)"
         "(np.asarray(probe['w']), float(probe['b']))")
