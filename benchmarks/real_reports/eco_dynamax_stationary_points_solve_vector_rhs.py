"""Computing the fixed point of each regime of an autoregressive HMM by solving (I - A_k) x = b_k for all regimes at once."""

URL = "https://github.com/probml/dynamax/issues/389"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''n_regimes, dim = 4, 3
angles = jnp.linspace(0.2, 1.1, n_regimes)
# one slightly contracting rotation-like dynamics matrix per regime
dyn = jnp.stack([0.8 * jnp.array([[jnp.cos(t), -jnp.sin(t), 0.0],
                                  [jnp.sin(t),  jnp.cos(t), 0.0],
                                  [0.0,         0.0,        0.5]]) for t in angles])
offsets = jnp.arange(n_regimes * dim, dtype=jnp.float32).reshape(n_regimes, dim) / 10.0
print(dyn.shape, offsets.shape)''',
    "fixed_points = jnp.linalg.solve(jnp.eye(dim) - dyn, offsets)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''n_regimes, dim = 4, 3
angles = jnp.linspace(0.2, 1.1, n_regimes)
# one slightly contracting rotation-like dynamics matrix per regime
dyn = jnp.stack([0.8 * jnp.array([[jnp.cos(t), -jnp.sin(t), 0.0],
                                  [jnp.sin(t),  jnp.cos(t), 0.0],
                                  [0.0,         0.0,        0.5]]) for t in angles])
offsets = jnp.arange(n_regimes * dim, dtype=jnp.float32).reshape(n_regimes, dim) / 10.0
print(dyn.shape, offsets.shape)''',
    "fixed_points = jnp.linalg.solve(jnp.eye(dim) - dyn, offsets[..., None]).squeeze(-1)",
)
CHECK = ("fixed_points.shape == (4, 3) and np.allclose(np.asarray(fixed_points), "
         "np.stack([np.linalg.solve(np.eye(3) - np.asarray(dyn, np.float64)[k], "
         "np.arange(12.0).reshape(4, 3)[k] / 10.0) for k in range(4)]), atol=1e-4)")
