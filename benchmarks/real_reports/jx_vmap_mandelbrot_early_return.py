"""vmapping a Mandelbrot escape-time function that returns early from a Python for loop once |z| > 2."""

URL = "https://github.com/jax-ml/jax/issues/24740"
KIND = "diagnose"
CELLS = (
    "import jax, jax.numpy as jnp",
    '''def escape_time(c, max_iter):
    z = 0.0 + 0.0j
    for i in range(max_iter):
        z = z * z + c
        if jnp.abs(z) > 2.0:
            return i
    return max_iter

cs = jnp.array([-0.75 + 0.1j, 1.0 + 1.0j, 0.0 + 0.0j])''',
    "counts = jax.vmap(escape_time, in_axes=(0, None))(cs, 10)",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    '''def escape_time(c, max_iter):
    def body(i, state):
        z, count = state
        z = z * z + c
        newly_escaped = (jnp.abs(z) > 2.0) & (count == max_iter)
        return z, jnp.where(newly_escaped, i, count)
    _, count = jax.lax.fori_loop(0, max_iter, body, (jnp.complex64(0.0), max_iter))
    return count

cs = jnp.array([-0.75 + 0.1j, 1.0 + 1.0j, 0.0 + 0.0j])''',
    "counts = jax.vmap(escape_time, in_axes=(0, None))(cs, 10)",
)
CHECK = "counts.tolist() == [10, 1, 10]"
