"""Getting the restoring force of an anharmonic spring by differentiating its energy with jax.grad(argnums=0), fixing the stiffness with functools.partial and then calling the result with the displacement passed by keyword."""

URL = "https://github.com/jax-ml/jax/issues/1696"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom functools import partial",
    '''def spring_energy(disp, stiffness):
    # harmonic term plus a small quartic correction
    return 0.5 * stiffness * disp ** 2 + 0.1 * disp ** 4

dE_ddisp = jax.grad(spring_energy, argnums=0)
slope_for_k3 = partial(dE_ddisp, stiffness=3.0)''',
    "slope = slope_for_k3(disp=1.5)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom functools import partial",
    '''def spring_energy(disp, stiffness):
    # harmonic term plus a small quartic correction
    return 0.5 * stiffness * disp ** 2 + 0.1 * disp ** 4

dE_ddisp = jax.grad(spring_energy, argnums=0)
slope_for_k3 = partial(dE_ddisp, stiffness=3.0)''',
    "slope = slope_for_k3(1.5)",
)
CHECK = "np.isclose(float(slope), 3.0 * 1.5 + 0.4 * 1.5 ** 3, rtol=1e-5)"
