"""Inserting a batch of candidate solutions into a MAP-Elites style grid of elites, keeping a candidate's fitness and genotype only where it beats the cell's current elite, selecting with jnp.where written with x= and y= keywords."""

URL = "https://github.com/adaptive-intelligent-robotics/QDax/issues/178"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''# one elite per cell (5 cells); empty cells hold -inf fitness
elite_fitness = jnp.array([0.4, -jnp.inf, 1.1, 0.8, -jnp.inf])
elite_genotype = jnp.array([[0.1, 0.2], [0.0, 0.0], [0.5, 0.9], [0.3, 0.3], [0.0, 0.0]])
# one candidate already assigned to each cell by its descriptor
cand_fitness = jnp.array([0.6, 0.2, 0.9, 0.8, -0.3])
cand_genotype = jnp.array([[0.7, 0.1], [0.4, 0.6], [0.2, 0.2], [0.9, 0.9], [0.5, 0.5]])

@jax.jit
def insert(elite_fitness, elite_genotype, cand_fitness, cand_genotype):
    better = cand_fitness > elite_fitness
    new_fitness = jnp.where(better, x=cand_fitness, y=elite_fitness)
    new_genotype = jnp.where(better[:, None], x=cand_genotype, y=elite_genotype)
    return new_fitness, new_genotype''',
    "new_fitness, new_genotype = insert(elite_fitness, elite_genotype, cand_fitness, cand_genotype)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''# one elite per cell (5 cells); empty cells hold -inf fitness
elite_fitness = jnp.array([0.4, -jnp.inf, 1.1, 0.8, -jnp.inf])
elite_genotype = jnp.array([[0.1, 0.2], [0.0, 0.0], [0.5, 0.9], [0.3, 0.3], [0.0, 0.0]])
# one candidate already assigned to each cell by its descriptor
cand_fitness = jnp.array([0.6, 0.2, 0.9, 0.8, -0.3])
cand_genotype = jnp.array([[0.7, 0.1], [0.4, 0.6], [0.2, 0.2], [0.9, 0.9], [0.5, 0.5]])

@jax.jit
def insert(elite_fitness, elite_genotype, cand_fitness, cand_genotype):
    better = cand_fitness > elite_fitness
    # x and y are positional-only in jnp.where
    new_fitness = jnp.where(better, cand_fitness, elite_fitness)
    new_genotype = jnp.where(better[:, None], cand_genotype, elite_genotype)
    return new_fitness, new_genotype''',
    "new_fitness, new_genotype = insert(elite_fitness, elite_genotype, cand_fitness, cand_genotype)",
)
CHECK = ("np.allclose(np.asarray(new_fitness), np.array([0.6, 0.2, 1.1, 0.8, -0.3])) and "
         "np.allclose(np.asarray(new_genotype), np.array([[0.7, 0.1], [0.4, 0.6], [0.5, 0.9], [0.3, 0.3], [0.5, 0.5]]))")
