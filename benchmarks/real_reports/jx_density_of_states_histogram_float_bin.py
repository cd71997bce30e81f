"""Accumulating a Wang-Landau style log-density-of-states histogram inside a fori_loop, where each energy's bin number comes from floor division of floats."""

URL = "https://github.com/jax-ml/jax/issues/835"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''e_min, e_max, n_bins = -4.0, 4.0, 8
bin_width = (e_max - e_min) / n_bins
energies = jnp.array([-3.7, -1.2, 0.3, 0.9, 2.5, 3.9, -1.5, 0.1, 0.4, -3.1])
mod_factor = 0.5

def body(i, carry):
    log_g, visits = carry
    b = (energies[i] - e_min) // bin_width
    log_g = log_g.at[b].add(mod_factor)
    visits = visits.at[b].add(1)
    return log_g, visits

def run():
    init = (jnp.zeros(n_bins), jnp.zeros(n_bins, dtype=jnp.int32))
    return jax.lax.fori_loop(0, energies.shape[0], body, init)''',
    "log_g, visits = run()",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''e_min, e_max, n_bins = -4.0, 4.0, 8
bin_width = (e_max - e_min) / n_bins
energies = jnp.array([-3.7, -1.2, 0.3, 0.9, 2.5, 3.9, -1.5, 0.1, 0.4, -3.1])
mod_factor = 0.5

def body(i, carry):
    log_g, visits = carry
    b = ((energies[i] - e_min) // bin_width).astype(jnp.int32)
    log_g = log_g.at[b].add(mod_factor)
    visits = visits.at[b].add(1)
    return log_g, visits

def run():
    init = (jnp.zeros(n_bins), jnp.zeros(n_bins, dtype=jnp.int32))
    return jax.lax.fori_loop(0, energies.shape[0], body, init)''',
    "log_g, visits = run()",
)
CHECK = ("(lambda h: np.array_equal(np.asarray(visits), h) and np.allclose(np.asarray(log_g), 0.5 * h))"
         "(np.histogram(np.array([-3.7, -1.2, 0.3, 0.9, 2.5, 3.9, -1.5, 0.1, 0.4, -3.1]), bins=8, range=(-4.0, 4.0))[0])")
