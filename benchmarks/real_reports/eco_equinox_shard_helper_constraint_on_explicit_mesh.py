"""Constraining every parameter array of a small layer to a row sharding with a filter_shard-like helper on a mesh built with jax.make_mesh."""

URL = "https://github.com/patrick-kidger/equinox/issues/1171"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax.sharding import NamedSharding, PartitionSpec as P",
    '''def shard_leaves(tree, sharding):
    # stand-in for a library helper that constrains every array leaf of a model
    return jax.tree.map(lambda a: jax.lax.with_sharding_constraint(a, sharding), tree)

mesh = jax.make_mesh((1,), ('x',))
row_sharding = NamedSharding(mesh, P('x'))
params = {'w': jnp.arange(6.0).reshape(3, 2) / 4, 'b': jnp.array([0.5, -1.0, 2.0])}

@jax.jit
def layer(params, x):
    params = shard_leaves(params, row_sharding)
    return params['w'] @ x + params['b']''',
    "y = layer(params, jnp.array([1.0, -2.0]))",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax.sharding import NamedSharding, PartitionSpec as P",
    '''def shard_leaves(tree, sharding):
    # stand-in for a library helper that constrains every array leaf of a model
    return jax.tree.map(lambda a: jax.sharding.reshard(a, sharding), tree)

mesh = jax.make_mesh((1,), ('x',))
row_sharding = NamedSharding(mesh, P('x'))
params = {'w': jnp.arange(6.0).reshape(3, 2) / 4, 'b': jnp.array([0.5, -1.0, 2.0])}

@jax.jit
def layer(params, x):
    params = shard_leaves(params, row_sharding)
    return params['w'] @ x + params['b']''',
    "y = layer(params, jnp.array([1.0, -2.0]))",
)
CHECK = "np.allclose(np.asarray(y), np.arange(6.0).reshape(3, 2) / 4 @ np.array([1.0, -2.0]) + np.array([0.5, -1.0, 2.0]), rtol=1e-6)"
