"""An outer jitted arange whose length comes from an inner jitted helper, both marking the argument static."""

URL = "https://github.com/jax-ml/jax/issues/35090"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nfrom functools import partial",
    '''@partial(jax.jit, static_argnums=0)
def add_one(i):
    return i + 1

@partial(jax.jit, static_argnums=0)
def my_arange(k):
    return jnp.arange(add_one(k))''',
    "r = my_arange(5)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nfrom functools import partial",
    '''def add_one(i):
    return i + 1

@partial(jax.jit, static_argnums=0)
def my_arange(k):
    return jnp.arange(add_one(k))''',
    "r = my_arange(5)",
)
CHECK = "r.tolist() == [0, 1, 2, 3, 4, 5]"
