"""Building the (1, 8) device mesh a model-parallel inference script expects, on a machine with one device."""

URL = "https://github.com/xai-org/grok-1/issues/248"
KIND = "diagnose"
CELLS = (
    "import numpy as np\nimport jax, jax.numpy as jnp\nfrom jax.experimental import mesh_utils\nfrom jax.sharding import Mesh, NamedSharding, PartitionSpec as P",
    """mesh_shape = (1, 8)
w = jnp.arange(8.0).reshape(4, 2)
x = jnp.ones((2, 4))""",
    """devices = mesh_utils.create_device_mesh(mesh_shape)
mesh = Mesh(devices, ("data", "model"))
w_sharded = jax.device_put(w, NamedSharding(mesh, P(None, "model")))
y = x @ w_sharded""",
)
FIXED = (
    "import numpy as np\nimport jax, jax.numpy as jnp\nfrom jax.experimental import mesh_utils\nfrom jax.sharding import Mesh, NamedSharding, PartitionSpec as P",
    """mesh_shape = (1, jax.device_count())
w = jnp.arange(8.0).reshape(4, 2)
x = jnp.ones((2, 4))""",
    """devices = mesh_utils.create_device_mesh(mesh_shape)
mesh = Mesh(devices, ("data", "model"))
w_sharded = jax.device_put(w, NamedSharding(mesh, P(None, "model")))
y = x @ w_sharded""",
)
# column sums of arange(8).reshape(4, 2): [0+2+4+6, 1+3+5+7] = [12, 16]
CHECK = "y.tolist() == [[12.0, 16.0], [12.0, 16.0]]"
