"""Passing a JAX scalar array as the static length argument of a jitted symmetric-range helper."""

URL = "https://github.com/jax-ml/jax/issues/6233"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    '''def sym_range(n):
    return jnp.arange(-n, n)

sym_range_jit = jax.jit(sym_range, static_argnums=0)''',
    "n = jnp.add(2, 1)\nout = sym_range_jit(n)",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    '''def sym_range(n):
    return jnp.arange(-n, n)

sym_range_jit = jax.jit(sym_range, static_argnums=0)''',
    "n = int(jnp.add(2, 1))\nout = sym_range_jit(n)",
)
CHECK = "out.tolist() == [-3, -2, -1, 0, 1, 2]"
