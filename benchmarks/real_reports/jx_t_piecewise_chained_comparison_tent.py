"""Evaluating a triangular (tent-shaped) fuzzy membership function written with jnp.piecewise at a few scalar inputs through jax.jit, with the middle interval written as a chained comparison."""

URL = "https://github.com/jax-ml/jax/issues/7969"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def tent(x):
    # rises from 0 at x=0 to 1 at x=1, falls back to 0 at x=2, zero elsewhere
    return jnp.piecewise(
        x,
        [0 <= x < 1, (x >= 1) & (x < 2)],
        [lambda t: t, lambda t: 2.0 - t, 0.0],
    )

tent_fast = jax.jit(tent)
points = [-0.5, 0.25, 0.75, 1.5, 2.5]
print(tent(0.25))   # works outside jit''',
    "memberships = [float(tent_fast(p)) for p in points]",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def tent(x):
    # rises from 0 at x=0 to 1 at x=1, falls back to 0 at x=2, zero elsewhere
    return jnp.piecewise(
        x,
        [(0 <= x) & (x < 1), (x >= 1) & (x < 2)],
        [lambda t: t, lambda t: 2.0 - t, 0.0],
    )

tent_fast = jax.jit(tent)
points = [-0.5, 0.25, 0.75, 1.5, 2.5]
print(tent(0.25))   # works outside jit''',
    "memberships = [float(tent_fast(p)) for p in points]",
)
CHECK = "np.allclose(memberships, [max(0.0, 1.0 - abs(p - 1.0)) if 0 <= p < 2 else 0.0 for p in [-0.5, 0.25, 0.75, 1.5, 2.5]], atol=1e-6)"
