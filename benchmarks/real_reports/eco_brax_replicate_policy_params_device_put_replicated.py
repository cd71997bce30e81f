"""Copying a small policy's parameters onto every local device brax-style before evaluating the policy on per-device observation batches with pmap."""

URL = "https://github.com/google/brax/issues/671"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''policy_params = {
    "w": jnp.array([[0.5, -0.2], [0.1, 0.3], [-0.4, 0.8]]),
    "b": jnp.array([0.05, -0.1]),
}

def policy(params, obs):
    return jnp.tanh(obs @ params["w"] + params["b"])

def bcast_local_devices(value):
    devices = jax.local_devices()
    return jax.device_put_replicated(value, devices)

n_dev = jax.local_device_count()
obs = jnp.arange(n_dev * 4 * 3, dtype=jnp.float32).reshape(n_dev, 4, 3) / 10.0''',
    '''replicated = bcast_local_devices(policy_params)
actions = jax.pmap(policy)(replicated, obs)''',
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

policy_params = {
    "w": jnp.array([[0.5, -0.2], [0.1, 0.3], [-0.4, 0.8]]),
    "b": jnp.array([0.05, -0.1]),
}

def policy(params, obs):
    return jnp.tanh(obs @ params["w"] + params["b"])

def bcast_local_devices(value):
    devices = jax.local_devices()
    sharding = NamedSharding(Mesh(np.array(devices), ("d",)), P("d"))
    return jax.tree.map(lambda y: jax.device_put(jnp.stack([y] * len(devices)), sharding), value)

n_dev = jax.local_device_count()
obs = jnp.arange(n_dev * 4 * 3, dtype=jnp.float32).reshape(n_dev, 4, 3) / 10.0''',
    '''replicated = bcast_local_devices(policy_params)
actions = jax.pmap(policy)(replicated, obs)''',
)
CHECK = ("replicated['w'].shape == (n_dev, 3, 2) and actions.shape == (n_dev, 4, 2) and "
         "np.allclose(np.asarray(actions), np.tanh((np.arange(n_dev * 12, dtype=np.float64).reshape(n_dev, 4, 3) / 10.0) "
         "@ np.array([[0.5, -0.2], [0.1, 0.3], [-0.4, 0.8]]) + np.array([0.05, -0.1])), atol=1e-5)")
