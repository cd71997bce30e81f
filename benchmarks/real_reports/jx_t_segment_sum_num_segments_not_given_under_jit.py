"""Pooling per-atom energies into one total per molecule for a batch of three small molecules packed together, with a jitted readout built on jax.ops.segment_sum."""

URL = "https://github.com/jax-ml/jax/issues/6350"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''atom_energies = jnp.array([-1.5, -0.25, -0.25, -2.0, -0.5, -0.5, -0.5, -3.0])
molecule_of_atom = jnp.array([0, 0, 0, 1, 1, 1, 1, 2])

def readout(energies, molecule_ids):
    return jax.ops.segment_sum(energies, molecule_ids)

readout_fast = jax.jit(readout)
print(readout(atom_energies, molecule_of_atom))   # fine without jit''',
    "per_molecule = readout_fast(atom_energies, molecule_of_atom)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''atom_energies = jnp.array([-1.5, -0.25, -0.25, -2.0, -0.5, -0.5, -0.5, -3.0])
molecule_of_atom = jnp.array([0, 0, 0, 1, 1, 1, 1, 2])

def readout(energies, molecule_ids, n_molecules):
    return jax.ops.segment_sum(energies, molecule_ids, num_segments=n_molecules)

readout_fast = jax.jit(readout, static_argnums=2)
print(readout(atom_energies, molecule_of_atom, 3))   # fine without jit''',
    "per_molecule = readout_fast(atom_energies, molecule_of_atom, 3)",
)
CHECK = "per_molecule.shape == (3,) and np.allclose(np.asarray(per_molecule), [-2.0, -3.5, -3.0])"
