"""Differentiating a triangular double sum over particle pairs (j < i) written as nested lax.fori_loop calls, with the inner loop running up to the outer index (dynamiqs Wigner-style recursion)."""

URL = "https://github.com/dynamiqs/dynamiqs/pull/917"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''x = jnp.array([0.3, -1.2, 2.0, 0.7, -0.4])

def pair_spread(x):
    n = x.shape[0]
    def outer(i, total):
        def inner(j, total):
            return total + (x[i] - x[j]) ** 2
        return lax.fori_loop(0, i, inner, total)
    return lax.fori_loop(0, n, outer, 0.0)

value = pair_spread(x)''',
    "g = jax.grad(pair_spread)(x)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''x = jnp.array([0.3, -1.2, 2.0, 0.7, -0.4])

def pair_spread(x):
    n = x.shape[0]
    def outer(i, total):
        def inner(j, total):
            return total + jnp.where(j < i, (x[i] - x[j]) ** 2, 0.0)
        return lax.fori_loop(0, n, inner, total)
    return lax.fori_loop(0, n, outer, 0.0)

value = pair_spread(x)''',
    "g = jax.grad(pair_spread)(x)",
)
CHECK = ("np.allclose(np.asarray(g), 2 * (5 * np.array([0.3, -1.2, 2.0, 0.7, -0.4]) - np.sum([0.3, -1.2, 2.0, 0.7, -0.4])), atol=1e-4)"
         " and abs(float(value) - sum((a - b) ** 2 for k, a in enumerate([0.3, -1.2, 2.0, 0.7, -0.4]) for b in [0.3, -1.2, 2.0, 0.7, -0.4][:k])) < 1e-4")
