"""Training weights through a straight-through quantizer written with custom_vjp, whose step size is marked non-differentiable and is passed into the jitted gradient as an argument."""

URL = "https://github.com/jax-ml/jax/issues/2912"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom functools import partial",
    '''@partial(jax.custom_vjp, nondiff_argnums=(1,))
def quantize(w, step):
    return step * jnp.round(w / step)

def quantize_fwd(w, step):
    return quantize(w, step), None

def quantize_bwd(step, _, g):
    return (g,)          # straight-through: pass the gradient unchanged

quantize.defvjp(quantize_fwd, quantize_bwd)

def loss(w, step):
    target = jnp.array([0.5, -0.25, 1.0, 0.0])
    return jnp.sum((quantize(w, step) - target) ** 2)

w = jnp.array([0.31, -0.62, 1.13, 0.07])
grad_fn = jax.jit(jax.grad(loss))''',
    "g = grad_fn(w, 0.25)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom functools import partial",
    '''@jax.custom_vjp
def quantize(w, step):
    return step * jnp.round(w / step)

def quantize_fwd(w, step):
    return quantize(w, step), None

def quantize_bwd(_, g):
    return (g, None)     # straight-through for w, no gradient for the step

quantize.defvjp(quantize_fwd, quantize_bwd)

def loss(w, step):
    target = jnp.array([0.5, -0.25, 1.0, 0.0])
    return jnp.sum((quantize(w, step) - target) ** 2)

w = jnp.array([0.31, -0.62, 1.13, 0.07])
grad_fn = jax.jit(jax.grad(loss))''',
    "g = grad_fn(w, 0.25)",
)
CHECK = ("np.allclose(np.asarray(g), 2 * (0.25 * np.round(np.array([0.31, -0.62, 1.13, 0.07]) / 0.25)"
         " - np.array([0.5, -0.25, 1.0, 0.0])), atol=1e-5)")
