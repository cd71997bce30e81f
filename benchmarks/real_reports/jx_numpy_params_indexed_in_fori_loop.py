"""Checking gradients with jax.test_util.check_grads of a point-source sum whose parameters are a dict of NumPy arrays indexed by a lax.fori_loop counter (jax.grad alone works)."""

URL = "https://github.com/jax-ml/jax/issues/7545"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax.test_util import check_grads",
    '''freqs = jnp.linspace(0.0, 1.0, 5)
params = {"pos": np.array([0.1, 0.4, 0.7]), "flux": np.array([2.0, 1.0, 0.5])}

def total_signal(params):
    pos = params["pos"]
    flux = params["flux"]
    def add_source(i, acc):
        return acc + flux[i] * jnp.cos(2 * jnp.pi * freqs * pos[i])
    return jax.lax.fori_loop(0, 3, add_source, jnp.zeros_like(freqs)).sum()

g = jax.grad(total_signal)(params)''',
    "check_grads(total_signal, (params,), order=1, modes=['rev'])",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax.test_util import check_grads",
    '''freqs = jnp.linspace(0.0, 1.0, 5)
params = {"pos": np.array([0.1, 0.4, 0.7]), "flux": np.array([2.0, 1.0, 0.5])}

def total_signal(params):
    pos = jnp.asarray(params["pos"])
    flux = jnp.asarray(params["flux"])
    def add_source(i, acc):
        return acc + flux[i] * jnp.cos(2 * jnp.pi * freqs * pos[i])
    return jax.lax.fori_loop(0, 3, add_source, jnp.zeros_like(freqs)).sum()

g = jax.grad(total_signal)(params)''',
    "check_grads(total_signal, (params,), order=1, modes=['rev'])",
)
CHECK = ("np.allclose(float(total_signal(params)), "
         "sum(f * np.cos(2 * np.pi * np.linspace(0, 1, 5) * p).sum() for p, f in zip([0.1, 0.4, 0.7], [2.0, 1.0, 0.5])), atol=1e-4) "
         "and np.allclose(np.asarray(g['flux']), "
         "[np.cos(2 * np.pi * np.linspace(0, 1, 5) * p).sum() for p in [0.1, 0.4, 0.7]], atol=1e-4)")
