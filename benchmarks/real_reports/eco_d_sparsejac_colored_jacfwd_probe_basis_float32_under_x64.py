"""Computing the tridiagonal Jacobian of a discretised reaction-diffusion residual in double precision with a sparsejac-style colored forward-mode helper that pushes a few compressed probe vectors through jax.jvp."""

URL = "https://github.com/mfschubert/sparsejac/issues/11"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def colored_jacfwd(fn, n, n_colors=3):
    """Dense Jacobian of a function with tridiagonal sparsity from n_colors JVPs."""
    colors = np.arange(n) % n_colors
    seeds = colors[None, :] == np.arange(n_colors)[:, None]      # (n_colors, n) bool
    rows = np.arange(n)
    band = np.abs(rows[:, None] - rows[None, :]) <= 1
    def jac(x):
        probes = jnp.asarray(seeds).astype(jnp.float32)
        compressed = jax.vmap(lambda v: jax.jvp(fn, (x,), (v,))[1])(probes)   # (n_colors, n)
        return jnp.where(band, compressed[colors[None, :], rows[:, None]], 0.0)
    return jac

def residual(u):
    # u_{i-1} - 2 u_i + u_{i+1} + u_i^2 with zero boundary values
    up = jnp.pad(u, 1)
    return up[:-2] - 2.0 * up[1:-1] + up[2:] + u ** 2

n = 6
tridiag_jac = colored_jacfwd(residual, n)''',
    '''with jax.enable_x64(True):
    u0 = jnp.linspace(0.1, 0.6, n, dtype=jnp.float64)
    J = tridiag_jac(u0)''',
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def colored_jacfwd(fn, n, n_colors=3):
    """Dense Jacobian of a function with tridiagonal sparsity from n_colors JVPs."""
    colors = np.arange(n) % n_colors
    seeds = colors[None, :] == np.arange(n_colors)[:, None]      # (n_colors, n) bool
    rows = np.arange(n)
    band = np.abs(rows[:, None] - rows[None, :]) <= 1
    def jac(x):
        probes = jnp.asarray(seeds).astype(x.dtype)
        compressed = jax.vmap(lambda v: jax.jvp(fn, (x,), (v,))[1])(probes)   # (n_colors, n)
        return jnp.where(band, compressed[colors[None, :], rows[:, None]], 0.0)
    return jac

def residual(u):
    # u_{i-1} - 2 u_i + u_{i+1} + u_i^2 with zero boundary values
    up = jnp.pad(u, 1)
    return up[:-2] - 2.0 * up[1:-1] + up[2:] + u ** 2

n = 6
tridiag_jac = colored_jacfwd(residual, n)''',
    '''with jax.enable_x64(True):
    u0 = jnp.linspace(0.1, 0.6, n, dtype=jnp.float64)
    J = tridiag_jac(u0)''',
)
CHECK = ("(lambda u: J.dtype == np.float64 and np.allclose(np.asarray(J), "
         "np.diag(-2.0 + 2.0 * u) + np.diag(np.ones(5), 1) + np.diag(np.ones(5), -1), atol=1e-12))"
         "(np.linspace(0.1, 0.6, 6))")
