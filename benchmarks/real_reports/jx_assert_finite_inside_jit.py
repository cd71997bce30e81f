"""Guarding a jitted log transform with a Python assert that the result has no NaNs."""

URL = "https://github.com/jax-ml/jax/issues/2273"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    '''@jax.jit
def checked_log(x):
    y = jnp.log(x)
    assert jnp.all(jnp.isfinite(y))
    return y''',
    "out = checked_log(jnp.array([1.0, jnp.nan, 3.0]))",
)
FIXED = (
    "import jax, jax.numpy as jnp\nfrom jax.experimental import checkify",
    '''def checked_log(x):
    y = jnp.log(x)
    checkify.check(jnp.all(jnp.isfinite(y)), "non-finite values in y")
    return y

checked_log = jax.jit(checkify.checkify(checked_log))''',
    '''err, out = checked_log(jnp.array([1.0, jnp.nan, 3.0]))
msg = err.get()
err_ok, out_ok = checked_log(jnp.array([1.0, jnp.e]))''',
)
CHECK = "msg is not None and 'non-finite' in msg and err_ok.get() is None and abs(float(out_ok[1]) - 1.0) < 1e-6"
