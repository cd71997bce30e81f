"""Normalising an unnormalised 1-D density on a grid by its trapezoid-rule integral, calling the NumPy-style trapz name through jax.numpy."""

URL = "https://github.com/jax-ml/jax/issues/20410"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''grid = jnp.linspace(-3.0, 3.0, 61)

def unnormalised(x, shift):
    return jnp.exp(-0.5 * (x - shift) ** 2) * (1.0 + 0.3 * jnp.sin(2.0 * x))

@jax.jit
def normalised_density(shift):
    vals = unnormalised(grid, shift)
    return vals / jnp.trapz(vals, grid)''',
    "dens = normalised_density(0.4)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''grid = jnp.linspace(-3.0, 3.0, 61)

def unnormalised(x, shift):
    return jnp.exp(-0.5 * (x - shift) ** 2) * (1.0 + 0.3 * jnp.sin(2.0 * x))

@jax.jit
def normalised_density(shift):
    vals = unnormalised(grid, shift)
    return vals / jax.scipy.integrate.trapezoid(vals, grid)''',
    "dens = normalised_density(0.4)",
)
CHECK = ("(lambda g: (lambda v: dens.shape == (61,) and np.allclose(np.asarray(dens), v / np.sum((v[1:] + v[:-1]) * np.diff(g) / 2.0), atol=1e-5))"
         "(np.exp(-0.5 * (g - 0.4) ** 2) * (1.0 + 0.3 * np.sin(2.0 * g))))(np.linspace(-3.0, 3.0, 61))")
