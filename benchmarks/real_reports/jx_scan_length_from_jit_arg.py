"""Running lax.scan for a number of steps passed as an argument to the jitted integrator."""

URL = "https://github.com/jax-ml/jax/issues/4473"
KIND = "diagnose"
CELLS = (
    "import jax, jax.numpy as jnp",
    '''def integrate(x0, rate, n_steps):
    def step(x, _):
        return x + 0.1 * rate * x, None
    x, _ = jax.lax.scan(step, x0, None, length=n_steps)
    return x

integrate_jit = jax.jit(integrate)''',
    "xT = integrate_jit(1.0, 2.0, 5)",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    '''def integrate(x0, rate, n_steps):
    def step(x, _):
        return x + 0.1 * rate * x, None
    x, _ = jax.lax.scan(step, x0, None, length=n_steps)
    return x

integrate_jit = jax.jit(integrate, static_argnums=2)''',
    "xT = integrate_jit(1.0, 2.0, 5)",
)
CHECK = "abs(float(xT) - 2.48832) < 1e-4"
