"""Writing a blocked matmul-plus-ReLU Pallas kernel (run in interpret mode on CPU) with a 2-D grid of BlockSpecs."""

URL = "https://github.com/jax-ml/jax/pull/19275"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax.experimental import pallas as pl",
    '''def matmul_relu_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = jnp.maximum(a_ref[...] @ b_ref[...], 0.0)

def matmul_relu(a, b, bm=4, bn=4):
    m, k = a.shape
    _, n = b.shape
    return pl.pallas_call(
        matmul_relu_kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), a.dtype),
        grid=(m // bm, n // bn),
        in_specs=[pl.BlockSpec((bm, k), lambda i, j: (i, 0)),
                  pl.BlockSpec((k, bn), lambda i, j: (0, j))],
        out_specs=[pl.BlockSpec((bm, bn), lambda i, j: (i, j))],
        interpret=True,
    )(a, b)

a = jnp.asarray(np.arange(48.0).reshape(8, 6) / 10 - 2, dtype=jnp.float32)
b = jnp.asarray(np.linspace(-1.0, 1.0, 48).reshape(6, 8), dtype=jnp.float32)''',
    "out = matmul_relu(a, b)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax.experimental import pallas as pl",
    '''def matmul_relu_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = jnp.maximum(a_ref[...] @ b_ref[...], 0.0)

def matmul_relu(a, b, bm=4, bn=4):
    m, k = a.shape
    _, n = b.shape
    return pl.pallas_call(
        matmul_relu_kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), a.dtype),
        grid=(m // bm, n // bn),
        in_specs=[pl.BlockSpec((bm, k), lambda i, j: (i, 0)),
                  pl.BlockSpec((k, bn), lambda i, j: (0, j))],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        interpret=True,
    )(a, b)

a = jnp.asarray(np.arange(48.0).reshape(8, 6) / 10 - 2, dtype=jnp.float32)
b = jnp.asarray(np.linspace(-1.0, 1.0, 48).reshape(6, 8), dtype=jnp.float32)''',
    "out = matmul_relu(a, b)",
)
CHECK = ("out.shape == (8, 8) and np.allclose(np.asarray(out), np.maximum((np.arange(48.0).reshape(8, 6) / 10 - 2)"
         " @ np.linspace(-1.0, 1.0, 48).reshape(6, 8), 0.0), rtol=1e-4, atol=1e-4)")
