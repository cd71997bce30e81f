"""Drawing one uniform random redshift inside each of five shell bins, passing the per-bin lower and upper edges as arrays the way NumPy's Generator.uniform allows."""

URL = "https://github.com/glass-dev/glass/issues/1117"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''z_lo = jnp.linspace(0.0, 1.0, 5)
z_hi = jnp.linspace(0.2, 1.2, 5)
key = jax.random.key(5)''',
    "z_draw = jax.random.uniform(key, minval=z_lo, maxval=z_hi)",
)
FIXED = (
    CELLS[0],
    CELLS[1],
    "z_draw = jax.random.uniform(key, shape=z_lo.shape, minval=z_lo, maxval=z_hi)",
)
CHECK = ("z_draw.shape == (5,) and bool((np.asarray(z_draw) >= np.linspace(0.0, 1.0, 5) - 1e-6).all()) "
         "and bool((np.asarray(z_draw) <= np.linspace(0.2, 1.2, 5) + 1e-6).all())")
