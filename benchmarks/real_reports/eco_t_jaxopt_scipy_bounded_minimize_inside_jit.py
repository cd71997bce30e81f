"""Fitting a bounded two-parameter trend to a short series with a jaxopt-style ScipyBoundedMinimize wrapper (SciPy L-BFGS-B driven by a JAX value-and-grad), calling the solver from inside a jitted fitting function."""

URL = "https://github.com/google/jaxopt/issues/214"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nimport scipy.optimize",
    '''class ScipyBoundedMinimize:
    """Tiny stand-in for jaxopt.ScipyBoundedMinimize: SciPy does the iterations on the host."""
    def __init__(self, fun, method="L-BFGS-B", tol=1e-10):
        self.method, self.tol = method, tol
        self._value_and_grad = jax.jit(jax.value_and_grad(fun))

    def run(self, init_params, bounds, *args):
        def f(x):
            v, g = self._value_and_grad(jnp.asarray(x, dtype=jnp.float32), *args)
            return float(v), np.asarray(g, dtype=np.float64)
        x0 = np.asarray(init_params, dtype=np.float64).reshape(-1)
        res = scipy.optimize.minimize(f, x0, jac=True, method=self.method,
                                      bounds=list(zip(*bounds)), tol=self.tol)
        return jnp.asarray(res.x)

def sse(p, t, r):
    return jnp.sum((p[0] + p[1] * t - r) ** 2)

t = jnp.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
r = jnp.array([1.1, 1.9, 3.2, 3.9, 5.1, 6.0])

@jax.jit
def fit(t, r):
    solver = ScipyBoundedMinimize(fun=sse)
    init = jnp.array([r[0], 0.0])
    bounds = ([-10.0, 0.0], [10.0, 10.0])        # slope kept non-negative
    return solver.run(init, bounds, t, r)''',
    "params = fit(t, r)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nimport scipy.optimize",
    '''class ScipyBoundedMinimize:
    """Tiny stand-in for jaxopt.ScipyBoundedMinimize: SciPy does the iterations on the host."""
    def __init__(self, fun, method="L-BFGS-B", tol=1e-10):
        self.method, self.tol = method, tol
        self._value_and_grad = jax.jit(jax.value_and_grad(fun))

    def run(self, init_params, bounds, *args):
        def f(x):
            v, g = self._value_and_grad(jnp.asarray(x, dtype=jnp.float32), *args)
            return float(v), np.asarray(g, dtype=np.float64)
        x0 = np.asarray(init_params, dtype=np.float64).reshape(-1)
        res = scipy.optimize.minimize(f, x0, jac=True, method=self.method,
                                      bounds=list(zip(*bounds)), tol=self.tol)
        return jnp.asarray(res.x)

def sse(p, t, r):
    return jnp.sum((p[0] + p[1] * t - r) ** 2)

t = jnp.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
r = jnp.array([1.1, 1.9, 3.2, 3.9, 5.1, 6.0])

def fit(t, r):            # not jitted: the SciPy loop runs on the host; sse is jitted inside
    solver = ScipyBoundedMinimize(fun=sse)
    init = jnp.array([r[0], 0.0])
    bounds = ([-10.0, 0.0], [10.0, 10.0])        # slope kept non-negative
    return solver.run(init, bounds, t, r)''',
    "params = fit(t, r)",
)
CHECK = "np.allclose(np.asarray(params), np.polyfit([0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [1.1, 1.9, 3.2, 3.9, 5.1, 6.0], 1)[::-1], atol=2e-3)"
