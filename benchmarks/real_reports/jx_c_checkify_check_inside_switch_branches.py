"""Choosing a variance-stabilising transform for a data vector with lax.switch, where each transform branch validates its input with checkify.check."""

URL = "https://github.com/jax-ml/jax/issues/12385"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax\nfrom jax.experimental import checkify",
    '''counts = jnp.array([4.0, 9.0, 1.0, 16.0, 2.5])

def keep(v):
    return v

def log_transform(v):
    checkify.check(jnp.all(v > 0), "log transform needs strictly positive values")
    return jnp.log(v)

def sqrt_transform(v):
    checkify.check(jnp.all(v >= 0), "sqrt transform needs non-negative values")
    return jnp.sqrt(v)

def stabilise(kind, v):
    return lax.switch(kind, [keep, log_transform, sqrt_transform], v)''',
    "out = stabilise(2, counts)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax\nfrom jax.experimental import checkify",
    '''counts = jnp.array([4.0, 9.0, 1.0, 16.0, 2.5])

def keep(v):
    return v

def log_transform(v):
    checkify.check(jnp.all(v > 0), "log transform needs strictly positive values")
    return jnp.log(v)

def sqrt_transform(v):
    checkify.check(jnp.all(v >= 0), "sqrt transform needs non-negative values")
    return jnp.sqrt(v)

def stabilise(kind, v):
    return lax.switch(kind, [keep, log_transform, sqrt_transform], v)''',
    "err, out = checkify.checkify(stabilise)(2, counts)\nerr.throw()",
)
CHECK = "np.allclose(np.asarray(out), np.sqrt([4.0, 9.0, 1.0, 16.0, 2.5]), atol=1e-6) and err.get() is None"
