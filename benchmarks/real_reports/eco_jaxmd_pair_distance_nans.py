"""First Brownian step of a soft-sphere bubble raft, run under jax.debug_nans, where the forces come out NaN."""

URL = "https://github.com/jax-md/jax-md/issues/98"
KIND = "diagnose"
CELLS = (
    "import jax, jax.numpy as jnp",
    """def soft_sphere_energy(R, sigma=1.0):
    dR = R[:, None, :] - R[None, :, :]
    dr = jnp.sqrt(jnp.sum(dR ** 2, axis=-1))          # includes the i == j pairs
    overlap = jnp.where(dr < sigma, 1.0 - dr / sigma, 0.0)
    mask = 1.0 - jnp.eye(R.shape[0])
    return 0.5 * jnp.sum(mask * overlap ** 2)

force_fn = jax.grad(lambda R: -soft_sphere_energy(R))

@jax.jit
def step(R, dt=0.1):
    return R + dt * force_fn(R)

R = jnp.array([[0.0, 0.0], [0.5, 0.0]])""",
    """with jax.debug_nans(True):
    R_new = step(R)""",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """def soft_sphere_energy(R, sigma=1.0):
    dR = R[:, None, :] - R[None, :, :]
    mask = 1.0 - jnp.eye(R.shape[0])
    dr2 = jnp.sum(dR ** 2, axis=-1)
    dr = jnp.sqrt(jnp.where(mask > 0, dr2, 1.0))      # keep the self pairs away from sqrt(0)
    overlap = jnp.where(dr < sigma, 1.0 - dr / sigma, 0.0)
    return 0.5 * jnp.sum(mask * overlap ** 2)

force_fn = jax.grad(lambda R: -soft_sphere_energy(R))

@jax.jit
def step(R, dt=0.1):
    return R + dt * force_fn(R)

R = jnp.array([[0.0, 0.0], [0.5, 0.0]])""",
    """with jax.debug_nans(True):
    R_new = step(R)""",
)
# E = (1 - r)^2 with r = 0.5, so |F| = 2 (1 - r) = 1 along x: x0 -> -0.1, x1 -> 0.6
CHECK = "bool(jnp.allclose(R_new, jnp.array([[-0.1, 0.0], [0.6, 0.0]]), atol=1e-6))"
