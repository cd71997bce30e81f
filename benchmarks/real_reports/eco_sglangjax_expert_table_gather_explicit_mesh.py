"""Remapping router top-k expert ids through a per-layer lookup table inside jit when the ids are sharded on an explicit-axis mesh."""

URL = "https://github.com/sgl-project/sglang-jax/issues/1370"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax.sharding import Mesh, NamedSharding, PartitionSpec as P, AxisType",
    '''mesh = Mesh(np.array(jax.devices()[:1]).reshape(1, 1), ('data', 'tensor'),
            axis_types=(AxisType.Explicit, AxisType.Explicit))

# logical -> physical expert slot, one row per layer (a plain, unsharded array)
phys_of_logical = jnp.asarray(np.array([[0, 1, 2, 3, 4, 5],
                                        [5, 4, 3, 2, 1, 0],
                                        [2, 3, 0, 1, 5, 4]], dtype=np.int32))

# router picks: tokens x top-k, sharded over the data axis
topk = jax.device_put(np.array([[0, 3], [5, 1], [2, 2], [4, 0]], dtype=np.int32),
                      NamedSharding(mesh, P('data', None)))

@jax.jit
def to_physical(layer, ids):
    return phys_of_logical[layer, ids]''',
    "routed = to_physical(1, topk)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax.sharding import Mesh, NamedSharding, PartitionSpec as P, AxisType",
    '''mesh = Mesh(np.array(jax.devices()[:1]).reshape(1, 1), ('data', 'tensor'),
            axis_types=(AxisType.Explicit, AxisType.Explicit))

# logical -> physical expert slot, one row per layer (a plain, unsharded array)
phys_of_logical = jnp.asarray(np.array([[0, 1, 2, 3, 4, 5],
                                        [5, 4, 3, 2, 1, 0],
                                        [2, 3, 0, 1, 5, 4]], dtype=np.int32))

# router picks: tokens x top-k, sharded over the data axis
topk = jax.device_put(np.array([[0, 3], [5, 1], [2, 2], [4, 0]], dtype=np.int32),
                      NamedSharding(mesh, P('data', None)))

@jax.jit
def to_physical(layer, ids):
    return phys_of_logical[layer].at[ids].get(out_sharding=jax.typeof(ids).sharding)''',
    "routed = to_physical(1, topk)",
)
CHECK = "np.array_equal(np.asarray(routed), np.array([[5, 2], [0, 4], [3, 3], [1, 5]]))"
