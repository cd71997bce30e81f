"""Evaluating a quantum-dot charge model over a large list of three-gate voltage points in fixed-size vmapped chunks, padding the last chunk up to the chunk size."""

URL = "https://github.com/b-vanstraaten/QArray/pull/1"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def dot_energy(vg):
    # toy stand-in for the per-point ground-state computation: one number per gate-voltage vector
    coupling = jnp.array([1.0, 0.5, 0.25])
    return jnp.sum(coupling * vg) + 0.1 * jnp.sum(vg ** 2)

def batched_vmap(f, vg, batch_size):
    n_points = vg.shape[0]
    n_pad = (-n_points) % batch_size
    # pad so the points split evenly into chunks (written back when models had two gates)
    vg_padded = jnp.concatenate([vg, jnp.zeros((n_pad, 2))], axis=0)
    chunks = vg_padded.reshape(-1, batch_size, vg.shape[1])
    out = jax.lax.map(jax.vmap(f), chunks).reshape(-1)
    return out[:n_points]

vg = jnp.linspace(-1.0, 1.0, 1000 * 3).reshape(1000, 3)''',
    "energies = batched_vmap(dot_energy, vg, 256)",
)
FIXED = (
    CELLS[0],
    CELLS[1].replace("jnp.zeros((n_pad, 2))", "jnp.zeros((n_pad, vg.shape[1]))"),
    CELLS[2],
)
CHECK = ("energies.shape == (1000,) and np.allclose(np.asarray(energies), "
         "np.linspace(-1.0, 1.0, 3000).reshape(1000, 3) @ np.array([1.0, 0.5, 0.25]) + "
         "0.1 * (np.linspace(-1.0, 1.0, 3000).reshape(1000, 3) ** 2).sum(axis=1), atol=1e-4)")
