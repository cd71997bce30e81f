"""Taking a Hessian-vector product through a NumPy host function wrapped in pure_callback with a hand-written custom_jvp rule."""

URL = "https://github.com/jax-ml/jax/issues/16650"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def host_response(x):
    # stands in for an external NumPy-only solver
    return (np.log1p(x ** 2) * np.cos(x)).astype(x.dtype)

@jax.custom_jvp
def response(x):
    return jax.pure_callback(host_response, jax.ShapeDtypeStruct(x.shape, x.dtype), x)

@response.defjvp
def response_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    y = host_response(x)
    dydx = 2 * x / (1 + x ** 2) * np.cos(x) - np.log1p(x ** 2) * np.sin(x)
    return y, dydx * x_dot

def energy(x):
    return jnp.sum(response(x))

def hvp(x, v):
    return jax.jvp(jax.grad(energy), (x,), (v,))[1]

x0 = jnp.array([0.7, 1.3, -0.4])
v = jnp.array([1.0, -0.5, 2.0])
g = jax.grad(energy)(x0)''',
    "hv = hvp(x0, v)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def host_response(x):
    # stands in for an external NumPy-only solver
    return (np.log1p(x ** 2) * np.cos(x)).astype(x.dtype)

@jax.custom_jvp
def response(x):
    return jax.pure_callback(host_response, jax.ShapeDtypeStruct(x.shape, x.dtype), x)

@response.defjvp
def response_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    y = response(x)
    dydx = 2 * x / (1 + x ** 2) * jnp.cos(x) - jnp.log1p(x ** 2) * jnp.sin(x)
    return y, dydx * x_dot

def energy(x):
    return jnp.sum(response(x))

def hvp(x, v):
    return jax.jvp(jax.grad(energy), (x,), (v,))[1]

x0 = jnp.array([0.7, 1.3, -0.4])
v = jnp.array([1.0, -0.5, 2.0])
g = jax.grad(energy)(x0)''',
    "hv = hvp(x0, v)",
)
CHECK = ("np.allclose(np.asarray(hv), (lambda x, v: (2 * (1 - x**2) / (1 + x**2)**2 * np.cos(x)"
         " - 4 * x / (1 + x**2) * np.sin(x) - np.log1p(x**2) * np.cos(x)) * v)"
         "(np.array([0.7, 1.3, -0.4]), np.array([1.0, -0.5, 2.0])), rtol=1e-4, atol=1e-5)")
