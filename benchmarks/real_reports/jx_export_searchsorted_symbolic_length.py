"""Exporting a jitted searchsorted with a symbolic length for the sorted bin edges."""

URL = "https://github.com/jax-ml/jax/issues/36766"
KIND = "diagnose"
CELLS = (
    "import jax, jax.numpy as jnp\nfrom jax import export",
    '''bucketize = jax.jit(lambda edges, v: jnp.searchsorted(edges, v))
edges_spec = jax.ShapeDtypeStruct(export.symbolic_shape("S"), jnp.float32)
v_spec = jax.ShapeDtypeStruct((3,), jnp.float32)''',
    "exported = export.export(bucketize)(edges_spec, v_spec)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nfrom jax import export",
    '''# same result as searchsorted(side="left"): count the edges strictly below each value
bucketize = jax.jit(lambda edges, v: jnp.sum(edges[:, None] < v[None, :], axis=0).astype(jnp.int32))
edges_spec = jax.ShapeDtypeStruct(export.symbolic_shape("S"), jnp.float32)
v_spec = jax.ShapeDtypeStruct((3,), jnp.float32)''',
    '''exported = export.export(bucketize)(edges_spec, v_spec)
idx = exported.call(jnp.arange(5.0), jnp.array([0.5, 2.0, 10.0]))''',
)
CHECK = "idx.tolist() == [1, 2, 5]"
