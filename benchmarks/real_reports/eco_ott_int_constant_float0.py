"""Implicit differentiation of a fixed-point solver whose constants tuple mixes a float and an integer."""

URL = "https://github.com/ott-jax/ott/issues/129"
KIND = "fix"
CELLS = (
    "import functools\nimport jax, jax.numpy as jnp",
    """def newton_step(x, constants):
    a, n_iter = constants          # n_iter: the iteration budget, carried along with a
    return 0.5 * (x + a / x)

@functools.partial(jax.custom_vjp, nondiff_argnums=(0,))
def fixpoint(step, x0, constants):
    return jax.lax.fori_loop(0, 30, lambda _, x: step(x, constants), x0)

def fixpoint_fwd(step, x0, constants):
    x_star = fixpoint(step, x0, constants)
    return x_star, (x_star, constants)

def fixpoint_bwd(step, res, g):
    x_star, constants = res
    _, vjp_x = jax.vjp(lambda x: step(x, constants), x_star)
    _, vjp_c = jax.vjp(lambda c: step(x_star, c), constants)
    u = g
    g_constants = jax.tree_util.tree_map(jnp.zeros_like, constants)
    for _ in range(20):
        g_constants = jax.tree_util.tree_map(lambda acc, ct: acc + ct, g_constants, vjp_c(u)[0])
        u = vjp_x(u)[0]
    return jnp.zeros_like(x_star), g_constants

fixpoint.defvjp(fixpoint_fwd, fixpoint_bwd)

def sqrt_via_fixpoint(a):
    return fixpoint(newton_step, jnp.float32(1.0), (a, jnp.int32(30)))""",
    "d_sqrt = jax.grad(sqrt_via_fixpoint)(jnp.float32(2.0))",
)
FIXED = (
    "import functools\nimport jax, jax.numpy as jnp",
    """def newton_step(x, constants):
    a, n_iter = constants          # n_iter: the iteration budget, carried along with a
    return 0.5 * (x + a / x)

def is_float0(x):
    return getattr(x, "dtype", None) == jax.dtypes.float0

@functools.partial(jax.custom_vjp, nondiff_argnums=(0,))
def fixpoint(step, x0, constants):
    return jax.lax.fori_loop(0, 30, lambda _, x: step(x, constants), x0)

def fixpoint_fwd(step, x0, constants):
    x_star = fixpoint(step, x0, constants)
    return x_star, (x_star, constants)

def fixpoint_bwd(step, res, g):
    x_star, constants = res
    _, vjp_x = jax.vjp(lambda x: step(x, constants), x_star)
    _, vjp_c = jax.vjp(lambda c: step(x_star, c), constants)
    u = g
    g_constants = jax.tree_util.tree_map(jnp.zeros_like, constants)
    for _ in range(20):
        g_constants = jax.tree_util.tree_map(
            lambda acc, ct: acc if is_float0(ct) else acc + ct, g_constants, vjp_c(u)[0])
        u = vjp_x(u)[0]
    return jnp.zeros_like(x_star), g_constants

fixpoint.defvjp(fixpoint_fwd, fixpoint_bwd)

def sqrt_via_fixpoint(a):
    return fixpoint(newton_step, jnp.float32(1.0), (a, jnp.int32(30)))""",
    "d_sqrt = jax.grad(sqrt_via_fixpoint)(jnp.float32(2.0))",
)
# d sqrt(a) / da = 1 / (2 sqrt(a)) = 0.35355339 at a = 2
CHECK = "abs(float(d_sqrt) - 0.35355339) < 1e-5"
