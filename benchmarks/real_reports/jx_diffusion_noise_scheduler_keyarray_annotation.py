"""Writing a small DDPM-style noise scheduler whose forward-noising method annotates its random key argument through a module-level alias of the old jax.random key type."""

URL = "https://github.com/jax-ml/jax/issues/22990"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''betas = jnp.linspace(1e-3, 0.05, 10)
x0 = jnp.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]])''',
    '''KeyArray = jax.random.KeyArray

class NoiseScheduler:
    def __init__(self, betas):
        self.alpha_bars = jnp.cumprod(1.0 - betas)

    def add_noise(self, key: KeyArray, x0, t):
        eps = jax.random.normal(key, x0.shape)
        ab = self.alpha_bars[t]
        return jnp.sqrt(ab) * x0 + jnp.sqrt(1.0 - ab) * eps, eps

sched = NoiseScheduler(betas)
xt, eps = sched.add_noise(jax.random.PRNGKey(7), x0, 4)''',
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''betas = jnp.linspace(1e-3, 0.05, 10)
x0 = jnp.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]])''',
    '''KeyArray = jax.Array

class NoiseScheduler:
    def __init__(self, betas):
        self.alpha_bars = jnp.cumprod(1.0 - betas)

    def add_noise(self, key: KeyArray, x0, t):
        eps = jax.random.normal(key, x0.shape)
        ab = self.alpha_bars[t]
        return jnp.sqrt(ab) * x0 + jnp.sqrt(1.0 - ab) * eps, eps

sched = NoiseScheduler(betas)
xt, eps = sched.add_noise(jax.random.PRNGKey(7), x0, 4)''',
)
CHECK = ("xt.shape == (2, 3) and np.allclose(np.asarray(xt), "
         "np.sqrt(np.prod(1 - np.linspace(1e-3, 0.05, 10)[:5])) * np.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]]) "
         "+ np.sqrt(1 - np.prod(1 - np.linspace(1e-3, 0.05, 10)[:5])) * np.asarray(eps), atol=1e-5)")
