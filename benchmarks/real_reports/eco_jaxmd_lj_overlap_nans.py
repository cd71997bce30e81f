"""Lennard-Jones dynamics started from particles packed into a tiny corner of the box, checked with jax.debug_nans."""

URL = "https://github.com/jax-md/jax-md/issues/254"
KIND = "diagnose"
CELLS = (
    "import jax, jax.numpy as jnp",
    """def lj_energy(R, sigma=1.0, epsilon=1.0):
    i, j = jnp.triu_indices(R.shape[0], k=1)
    r = jnp.linalg.norm(R[i] - R[j], axis=-1)
    sr6 = (sigma / r) ** 6
    return jnp.sum(4.0 * epsilon * (sr6 ** 2 - sr6))

force_fn = jax.grad(lambda R: -lj_energy(R))

@jax.jit
def md_step(R, dt=1e-3):
    return R + dt * force_fn(R)

R = jax.random.uniform(jax.random.PRNGKey(0), (6, 2), minval=0.0, maxval=0.001)""",
    """with jax.debug_nans(True):
    for _ in range(3):
        R = md_step(R)""",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """def lj_energy(R, sigma=1.0, epsilon=1.0):
    i, j = jnp.triu_indices(R.shape[0], k=1)
    r = jnp.linalg.norm(R[i] - R[j], axis=-1)
    sr6 = (sigma / r) ** 6
    return jnp.sum(4.0 * epsilon * (sr6 ** 2 - sr6))

force_fn = jax.grad(lambda R: -lj_energy(R))

@jax.jit
def md_step(R, dt=1e-3):
    return R + dt * force_fn(R)

r_min = 2.0 ** (1.0 / 6.0)                       # start the pair at the potential minimum
R = jnp.array([[0.0, 0.0], [r_min, 0.0]])""",
    """with jax.debug_nans(True):
    for _ in range(3):
        R = md_step(R)
E = lj_energy(R)""",
)
# at r = 2^(1/6) sigma the LJ pair energy is -epsilon and the force vanishes
CHECK = "abs(float(E) + 1.0) < 1e-5 and abs(float(R[1, 0] - R[0, 0]) - 2.0 ** (1 / 6)) < 1e-5"
