"""Running the Pallas quickstart vector-add kernel on a machine without a GPU backend for Pallas."""

URL = "https://github.com/jax-ml/jax-triton/issues/219"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nfrom jax.experimental import pallas as pl",
    """def vec_add_kernel(a_ref, b_ref, out_ref):
    out_ref[...] = a_ref[...] + b_ref[...]

@jax.jit
def vec_add(a, b):
    return pl.pallas_call(vec_add_kernel, out_shape=jax.ShapeDtypeStruct(a.shape, a.dtype))(a, b)""",
    "out = vec_add(jnp.arange(8), jnp.arange(8))",
)
FIXED = (
    "import jax, jax.numpy as jnp\nfrom jax.experimental import pallas as pl",
    """def vec_add_kernel(a_ref, b_ref, out_ref):
    out_ref[...] = a_ref[...] + b_ref[...]

@jax.jit
def vec_add(a, b):
    return pl.pallas_call(vec_add_kernel, out_shape=jax.ShapeDtypeStruct(a.shape, a.dtype),
                          interpret=True)(a, b)""",
    "out = vec_add(jnp.arange(8), jnp.arange(8))",
)
CHECK = "out.tolist() == [0, 2, 4, 6, 8, 10, 12, 14]"
