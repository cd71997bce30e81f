"""Taking a steepest-descent step for the root of a^2 - 2 by linearizing the residual at an initial guess and pulling the residual back through jax.linear_transpose of the linearized map."""

URL = "https://github.com/jax-ml/jax/issues/25517"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def residual(a):
    return a ** 2 - 2.0

a0 = 3                      # initial guess
r0, J = jax.linearize(residual, a0)''',
    '''Jt = jax.linear_transpose(J, a0)
(g,) = Jt(r0)              # J^T r, the gradient of 0.5 * r**2
a1 = a0 - 0.05 * g''',
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def residual(a):
    return a ** 2 - 2.0

a0 = 3.0                    # initial guess
r0, J = jax.linearize(residual, a0)''',
    '''Jt = jax.linear_transpose(J, a0)
(g,) = Jt(r0)              # J^T r, the gradient of 0.5 * r**2
a1 = a0 - 0.05 * g''',
)
CHECK = "np.isclose(float(g), 2 * 3.0 * (3.0 ** 2 - 2.0), rtol=1e-6) and np.isclose(float(a1), 3.0 - 0.05 * 42.0, rtol=1e-6)"
