"""Solving a small nonlinear steady-state equation with a hand-written Newton-Raphson while_loop whose body logs the iteration count and residual when log_iterations is on."""

URL = "https://github.com/google-deepmind/torax/pull/1502"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''def residual(T):
    # balance of a heating source against conduction + radiation-like loss
    return 0.4 * T + 0.05 * T ** 3 - 2.7

def newton_solve(T0, tol=1e-6, maxiter=30, log_iterations=False):
    drdT = jax.grad(residual)

    def cond(state):
        it, T, r = state
        return (jnp.abs(r) > tol) & (it < maxiter)

    def body(state):
        it, T, r = state
        T_new = T - r / drdT(T)
        r_new = residual(T_new)
        if log_iterations:
            jax.debug.print('Iteration: %d. Residual: %.10f. T = %.6f',
                            it + 1, jnp.abs(r_new), T_new)
        return it + 1, T_new, r_new

    it, T, r = lax.while_loop(cond, body, (0, T0, residual(T0)))
    return T, it

solve = jax.jit(newton_solve, static_argnames=("log_iterations",))''',
    "T_root, n_iter = solve(1.0, log_iterations=True)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''def residual(T):
    # balance of a heating source against conduction + radiation-like loss
    return 0.4 * T + 0.05 * T ** 3 - 2.7

def newton_solve(T0, tol=1e-6, maxiter=30, log_iterations=False):
    drdT = jax.grad(residual)

    def cond(state):
        it, T, r = state
        return (jnp.abs(r) > tol) & (it < maxiter)

    def body(state):
        it, T, r = state
        T_new = T - r / drdT(T)
        r_new = residual(T_new)
        if log_iterations:
            jax.debug.print('Iteration: {:d}. Residual: {:.10f}. T = {:.6f}',
                            it + 1, jnp.abs(r_new), T_new)
        return it + 1, T_new, r_new

    it, T, r = lax.while_loop(cond, body, (0, T0, residual(T0)))
    return T, it

solve = jax.jit(newton_solve, static_argnames=("log_iterations",))''',
    "T_root, n_iter = solve(1.0, log_iterations=True)",
)
CHECK = "abs(float(T_root) - float(np.real([r for r in np.roots([0.05, 0.0, 0.4, -2.7]) if abs(r.imag) < 1e-9][0]))) < 1e-4 and 1 <= int(n_iter) < 30"
