"""Using lax.scan as a map over the frames of a short signal to get each frame's energy and peak, passing None as the initial carry but returning 0 as the carry from the step."""

URL = "https://github.com/jax-ml/jax/issues/1534"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''frames = jnp.array([[0.1, -0.4, 0.3, 0.0],
                    [1.0, 0.5, -0.5, -1.0],
                    [0.2, 0.2, 0.2, 0.2]])

def frame_stats(carry, frame):
    energy = jnp.sum(frame ** 2)
    peak = jnp.max(jnp.abs(frame))
    return 0, (energy, peak)''',
    "_, (energies, peaks) = lax.scan(frame_stats, None, frames)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''frames = jnp.array([[0.1, -0.4, 0.3, 0.0],
                    [1.0, 0.5, -0.5, -1.0],
                    [0.2, 0.2, 0.2, 0.2]])

def frame_stats(carry, frame):
    energy = jnp.sum(frame ** 2)
    peak = jnp.max(jnp.abs(frame))
    return None, (energy, peak)''',
    "_, (energies, peaks) = lax.scan(frame_stats, None, frames)",
)
CHECK = ("np.allclose(np.asarray(energies), (np.array([[0.1, -0.4, 0.3, 0.0], [1.0, 0.5, -0.5, -1.0], [0.2, 0.2, 0.2, 0.2]]) ** 2).sum(1), atol=1e-6)"
         " and np.allclose(np.asarray(peaks), [0.4, 1.0, 0.2], atol=1e-6)")
