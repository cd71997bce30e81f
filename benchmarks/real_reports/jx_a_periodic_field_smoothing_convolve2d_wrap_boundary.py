"""Smoothing a field on a doubly periodic grid with a small 3x3 averaging stencil using jax.scipy.signal.convolve2d, asking for wrap-around boundaries as in SciPy."""

URL = "https://github.com/jax-ml/jax/issues/7276"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax.scipy.signal import convolve2d",
    '''# anomaly field on a 6 x 8 grid that is periodic in both directions
rows, cols = np.meshgrid(np.arange(6), np.arange(8), indexing="ij")
field = jnp.asarray(np.sin(2 * np.pi * rows / 6) + 0.5 * np.cos(2 * np.pi * cols / 8) + 0.1 * rows * cols, dtype=jnp.float32)
stencil = jnp.array([[0.0, 1.0, 0.0],
                     [1.0, 4.0, 1.0],
                     [0.0, 1.0, 0.0]], dtype=jnp.float32) / 8.0''',
    "smoothed = convolve2d(field, stencil, mode='same', boundary='wrap')",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax.scipy.signal import convolve2d",
    '''# anomaly field on a 6 x 8 grid that is periodic in both directions
rows, cols = np.meshgrid(np.arange(6), np.arange(8), indexing="ij")
field = jnp.asarray(np.sin(2 * np.pi * rows / 6) + 0.5 * np.cos(2 * np.pi * cols / 8) + 0.1 * rows * cols, dtype=jnp.float32)
stencil = jnp.array([[0.0, 1.0, 0.0],
                     [1.0, 4.0, 1.0],
                     [0.0, 1.0, 0.0]], dtype=jnp.float32) / 8.0''',
    "# wrap-pad by the stencil half-width, then keep only the fully overlapping part\n"
    "padded = jnp.pad(field, 1, mode='wrap')\n"
    "smoothed = convolve2d(padded, stencil, mode='valid')",
)
CHECK = ("smoothed.shape == (6, 8) and (lambda F: np.allclose(np.asarray(smoothed), "
         "(4 * F + np.roll(F, 1, 0) + np.roll(F, -1, 0) + np.roll(F, 1, 1) + np.roll(F, -1, 1)) / 8.0, atol=1e-5))"
         "(np.sin(2 * np.pi * np.arange(6)[:, None] / 6) + 0.5 * np.cos(2 * np.pi * np.arange(8)[None, :] / 8) "
         "+ 0.1 * np.arange(6)[:, None] * np.arange(8)[None, :])")
