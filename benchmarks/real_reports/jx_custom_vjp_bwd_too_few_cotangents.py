"""Writing a custom_vjp for pasting a scaled image patch onto a blank canvas whose (height, width) is passed as a tuple argument."""

URL = "https://github.com/jax-ml/jax/issues/8356"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''@jax.custom_vjp
def paste(patch, gain, canvas_hw):
    canvas = jnp.zeros(canvas_hw)
    return canvas.at[:patch.shape[0], :patch.shape[1]].set(patch * gain)

def paste_fwd(patch, gain, canvas_hw):
    return paste(patch, gain, canvas_hw), (patch, gain)

def paste_bwd(res, g):
    patch, gain = res
    h, w = patch.shape
    g_in = g[:h, :w]
    return g_in * gain, jnp.sum(g_in * patch)

paste.defvjp(paste_fwd, paste_bwd)

def energy(patch, gain):
    return jnp.sum(paste(patch, gain, (4, 5)) ** 2)

patch = jnp.arange(6.0).reshape(2, 3)''',
    "d_patch, d_gain = jax.grad(energy, argnums=(0, 1))(patch, 1.5)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''@jax.custom_vjp
def paste(patch, gain, canvas_hw):
    canvas = jnp.zeros(canvas_hw)
    return canvas.at[:patch.shape[0], :patch.shape[1]].set(patch * gain)

def paste_fwd(patch, gain, canvas_hw):
    return paste(patch, gain, canvas_hw), (patch, gain)

def paste_bwd(res, g):
    patch, gain = res
    h, w = patch.shape
    g_in = g[:h, :w]
    return g_in * gain, jnp.sum(g_in * patch), None

paste.defvjp(paste_fwd, paste_bwd)

def energy(patch, gain):
    return jnp.sum(paste(patch, gain, (4, 5)) ** 2)

patch = jnp.arange(6.0).reshape(2, 3)''',
    "d_patch, d_gain = jax.grad(energy, argnums=(0, 1))(patch, 1.5)",
)
CHECK = ("np.allclose(np.asarray(d_patch), 2 * 1.5 ** 2 * np.arange(6.0).reshape(2, 3), rtol=1e-5)"
         " and np.isclose(float(d_gain), 2 * 1.5 * np.sum(np.arange(6.0) ** 2), rtol=1e-5)")
