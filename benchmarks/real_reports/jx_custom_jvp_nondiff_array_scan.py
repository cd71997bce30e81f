"""A custom_jvp mask function with the array mask in nondiff_argnums, used inside lax.scan and then differentiated."""

URL = "https://github.com/jax-ml/jax/issues/20889"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    '''def masked(arr, mask):
    return arr * mask

masked = jax.custom_jvp(masked, nondiff_argnums=(1,))

@masked.defjvp
def masked_jvp(mask, primals, tangents):
    return jax.jvp(lambda a: a * mask, primals, tangents)''',
    '''def step(carry, _):
    x, mask = carry
    return (masked(x, mask), mask), None

def loss(x, mask):
    (x, _), _ = jax.lax.scan(step, (x, mask), None, length=2)
    return x.sum()''',
    "g = jax.grad(loss)(jnp.ones(4), jnp.array([True, False, True, False]))",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    '''@jax.custom_jvp
def masked(arr, mask):
    return arr * mask

@masked.defjvp
def masked_jvp(primals, tangents):
    arr, mask = primals
    arr_dot, _ = tangents
    return arr * mask, arr_dot * mask''',
    '''def step(carry, _):
    x, mask = carry
    return (masked(x, mask), mask), None

def loss(x, mask):
    (x, _), _ = jax.lax.scan(step, (x, mask), None, length=2)
    return x.sum()''',
    "g = jax.grad(loss)(jnp.ones(4), jnp.array([True, False, True, False]))",
)
CHECK = "g.tolist() == [1.0, 0.0, 1.0, 0.0]"
