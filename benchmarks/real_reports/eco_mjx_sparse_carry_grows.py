"""Rolling out a physics step with lax.scan when the step fills in a sparse buffer that make_data left empty."""

URL = "https://github.com/google-deepmind/mujoco/issues/2188"
KIND = "diagnose"
CELLS = (
    "import jax, jax.numpy as jnp",
    """nv = 3
nnz = nv * (nv + 1) // 2          # entries of the lower triangle of the mass matrix

def make_data():
    return {"qpos": jnp.zeros(nv), "qvel": jnp.ones(nv), "qM_sparse": jnp.zeros((0,))}

@jax.jit
def step(data, dt=0.01):
    qM_sparse = jnp.ones(nnz)       # filled on the first call
    qpos = data["qpos"] + dt * data["qvel"]
    return {"qpos": qpos, "qvel": data["qvel"], "qM_sparse": qM_sparse}

data = make_data()""",
    "final, _ = jax.lax.scan(lambda d, _: (step(d), None), data, None, length=10)",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """nv = 3
nnz = nv * (nv + 1) // 2          # entries of the lower triangle of the mass matrix

def make_data():
    return {"qpos": jnp.zeros(nv), "qvel": jnp.ones(nv), "qM_sparse": jnp.zeros((0,))}

@jax.jit
def step(data, dt=0.01):
    qM_sparse = jnp.ones(nnz)       # filled on the first call
    qpos = data["qpos"] + dt * data["qvel"]
    return {"qpos": qpos, "qvel": data["qvel"], "qM_sparse": qM_sparse}

data = make_data()
data = step(data)                   # one eager step so every buffer has its final size""",
    "final, _ = jax.lax.scan(lambda d, _: (step(d), None), data, None, length=10)",
)
# 1 + 10 steps of 0.01 with unit velocity
CHECK = "final['qM_sparse'].shape == (6,) and bool(jnp.allclose(final['qpos'], 0.11, atol=1e-6))"
