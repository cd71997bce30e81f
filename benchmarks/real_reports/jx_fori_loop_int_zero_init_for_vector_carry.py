"""Accumulating per-row squared step sizes of several recorded traces in a fori_loop, starting the accumulator from the Python literal 0."""

URL = "https://github.com/jax-ml/jax/issues/1686"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''traces = jnp.array([[0.0, 1.0, 3.0, 2.0, 2.5],
                    [1.0, 1.0, 0.0, -1.0, 4.0],
                    [2.0, 4.0, 8.0, 16.0, 32.0]])
n_steps = traces.shape[1] - 1

def add_step(i, carry):
    total, x = carry
    return total + (x[:, i + 1] - x[:, i]) ** 2, x''',
    "roughness, _ = jax.lax.fori_loop(0, n_steps, add_step, (0, traces))",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''traces = jnp.array([[0.0, 1.0, 3.0, 2.0, 2.5],
                    [1.0, 1.0, 0.0, -1.0, 4.0],
                    [2.0, 4.0, 8.0, 16.0, 32.0]])
n_steps = traces.shape[1] - 1

def add_step(i, carry):
    total, x = carry
    return total + (x[:, i + 1] - x[:, i]) ** 2, x''',
    "roughness, _ = jax.lax.fori_loop(0, n_steps, add_step, (jnp.zeros(traces.shape[0]), traces))",
)
CHECK = "roughness.shape == (3,) and np.allclose(np.asarray(roughness), (np.diff(np.array([[0.0, 1.0, 3.0, 2.0, 2.5], [1.0, 1.0, 0.0, -1.0, 4.0], [2.0, 4.0, 8.0, 16.0, 32.0]]), axis=1) ** 2).sum(axis=1), rtol=1e-5)"
