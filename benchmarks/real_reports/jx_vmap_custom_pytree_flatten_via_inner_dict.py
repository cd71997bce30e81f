"""Vectorizing over one field of a dataclass registered as a pytree (flattened through an inner dict) while marking its scalar field unbatched with None."""

URL = "https://github.com/jax-ml/jax/issues/26053"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nimport dataclasses",
    '''@dataclasses.dataclass
class Spring:
    stretch: object
    stiffness: object

jax.tree_util.register_pytree_node(
    Spring,
    lambda s: jax.tree.flatten({"stretch": s.stretch, "stiffness": s.stiffness}),
    lambda aux, leaves: Spring(**jax.tree.unflatten(aux, leaves)),
)

springs = Spring(stretch=jnp.array([0.1, 0.2, 0.4, 0.8]), stiffness=3.0)
axes = jax.tree.map(lambda _: 0, springs)
axes.stiffness = None

def potential(s):
    return 0.5 * s.stiffness * s.stretch ** 2''',
    "energies = jax.vmap(potential, in_axes=(axes,))(springs)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nimport dataclasses",
    '''@dataclasses.dataclass
class Spring:
    stretch: object
    stiffness: object

jax.tree_util.register_pytree_node(
    Spring,
    lambda s: ((s.stretch, s.stiffness), None),
    lambda aux, leaves: Spring(*leaves),
)

springs = Spring(stretch=jnp.array([0.1, 0.2, 0.4, 0.8]), stiffness=3.0)
axes = jax.tree.map(lambda _: 0, springs)
axes.stiffness = None

def potential(s):
    return 0.5 * s.stiffness * s.stretch ** 2''',
    "energies = jax.vmap(potential, in_axes=(axes,))(springs)",
)
CHECK = "energies.shape == (4,) and np.allclose(np.asarray(energies), 0.5 * 3.0 * np.array([0.1, 0.2, 0.4, 0.8]) ** 2, rtol=1e-5)"
