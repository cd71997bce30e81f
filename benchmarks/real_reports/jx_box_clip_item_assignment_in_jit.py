"""Clipping bounding boxes (x1, y1, x2, y2) to the image size inside a jitted function by assigning into column slices, NumPy style."""

URL = "https://github.com/jax-ml/jax/issues/7032"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''@jax.jit
def clip_boxes(boxes, width, height):
    out = jnp.asarray(boxes)
    out[:, [0, 2]] = out[:, [0, 2]].clip(0, width)
    out[:, [1, 3]] = out[:, [1, 3]].clip(0, height)
    return out

boxes = jnp.array([[-4.0, 10.0, 50.0, 90.0],
                   [20.0, -3.0, 130.0, 60.0],
                   [5.0, 5.0, 15.0, 15.0]])''',
    "clipped = clip_boxes(boxes, 100.0, 80.0)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''@jax.jit
def clip_boxes(boxes, width, height):
    out = jnp.asarray(boxes)
    out = out.at[:, [0, 2]].set(out[:, [0, 2]].clip(0, width))
    out = out.at[:, [1, 3]].set(out[:, [1, 3]].clip(0, height))
    return out

boxes = jnp.array([[-4.0, 10.0, 50.0, 90.0],
                   [20.0, -3.0, 130.0, 60.0],
                   [5.0, 5.0, 15.0, 15.0]])''',
    "clipped = clip_boxes(boxes, 100.0, 80.0)",
)
CHECK = "np.allclose(np.asarray(clipped), [[0.0, 10.0, 50.0, 80.0], [20.0, 0.0, 100.0, 60.0], [5.0, 5.0, 15.0, 15.0]])"
