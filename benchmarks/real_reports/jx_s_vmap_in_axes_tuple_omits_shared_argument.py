"""Placing sample points along a batch of camera rays (NeRF style) with vmap over ray origins and directions, while every ray shares the same depth samples."""

URL = "https://github.com/jax-ml/jax/issues/9928"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def points_on_ray(origin, direction, t_vals):
    # (3,), (3,), (S,) -> (S, 3)
    return origin[None, :] + t_vals[:, None] * direction[None, :]

origins = jnp.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]])
directions = jnp.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.6, 0.8, 0.0]])
t_vals = jnp.linspace(2.0, 6.0, 5)

sample_fn = jax.vmap(points_on_ray, in_axes=(0, 0))''',
    "pts = sample_fn(origins, directions, t_vals)",
)
FIXED = (
    CELLS[0],
    CELLS[1].replace("in_axes=(0, 0))", "in_axes=(0, 0, None))"),
    CELLS[2],
)
CHECK = ("pts.shape == (4, 5, 3) and np.allclose(np.asarray(pts), "
         "np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]])[:, None, :] + "
         "np.linspace(2.0, 6.0, 5)[None, :, None] * np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.6, 0.8, 0.0]])[:, None, :], atol=1e-5)")
