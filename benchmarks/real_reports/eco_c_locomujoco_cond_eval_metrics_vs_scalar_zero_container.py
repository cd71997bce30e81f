"""Running a validation pass every few training steps inside a jitted update with lax.cond, returning a zero metrics container on the other steps (loco-mujoco style)."""

URL = "https://github.com/robfiras/loco-mujoco/issues/87"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom typing import NamedTuple",
    '''N_ENVS, N_SITES = 4, 3

class ValidationSummary(NamedTuple):
    mean_return: jax.Array
    site_distance: jax.Array   # per environment and tracked site

target = jnp.linspace(0.0, 1.1, N_ENVS * N_SITES).reshape(N_ENVS, N_SITES)

def evaluation_step(scale):
    sites = scale * jnp.arange(N_ENVS * N_SITES, dtype=jnp.float32).reshape(N_ENVS, N_SITES) / 10.0
    dist = jnp.abs(sites - target)
    return ValidationSummary(mean_return=-jnp.mean(dist), site_distance=dist)

def get_zero_container():
    return ValidationSummary(mean_return=jnp.zeros(()), site_distance=jnp.zeros(()))

@jax.jit
def train_step(counter, scale):
    scale = scale * 1.01
    metrics = jax.lax.cond(counter % 10 == 0,
                           lambda: evaluation_step(scale),
                           get_zero_container)
    return scale, metrics''',
    "scale, metrics = train_step(20, jnp.float32(1.5))",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom typing import NamedTuple",
    '''N_ENVS, N_SITES = 4, 3

class ValidationSummary(NamedTuple):
    mean_return: jax.Array
    site_distance: jax.Array   # per environment and tracked site

target = jnp.linspace(0.0, 1.1, N_ENVS * N_SITES).reshape(N_ENVS, N_SITES)

def evaluation_step(scale):
    sites = scale * jnp.arange(N_ENVS * N_SITES, dtype=jnp.float32).reshape(N_ENVS, N_SITES) / 10.0
    dist = jnp.abs(sites - target)
    return ValidationSummary(mean_return=-jnp.mean(dist), site_distance=dist)

def get_zero_container():
    return ValidationSummary(mean_return=jnp.zeros(()), site_distance=jnp.zeros((N_ENVS, N_SITES)))

@jax.jit
def train_step(counter, scale):
    scale = scale * 1.01
    metrics = jax.lax.cond(counter % 10 == 0,
                           lambda: evaluation_step(scale),
                           get_zero_container)
    return scale, metrics''',
    "scale, metrics = train_step(20, jnp.float32(1.5))",
)
CHECK = ("metrics.site_distance.shape == (4, 3)"
         " and np.allclose(np.asarray(metrics.site_distance), np.abs(1.515 * np.arange(12).reshape(4, 3) / 10.0 - np.linspace(0.0, 1.1, 12).reshape(4, 3)), atol=1e-5)"
         " and abs(float(metrics.mean_return) + np.mean(np.abs(1.515 * np.arange(12).reshape(4, 3) / 10.0 - np.linspace(0.0, 1.1, 12).reshape(4, 3)))) < 1e-5"
         " and float(jnp.abs(train_step(7, jnp.float32(1.5))[1].site_distance).sum()) == 0.0")
