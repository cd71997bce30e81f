"""Checking a trial solution of the oscillator equation u'' + 4u = 0 physics-informed style, taking u'' at collocation times kept as an (N, 1) column with vmap(grad(grad(u)))."""

URL = "https://github.com/jax-ml/jax/issues/28110"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def u(t):
    # trial solution, elementwise in t
    return jnp.cos(2.0 * t) + 0.5 * jnp.sin(2.0 * t)

t_col = jnp.linspace(0.0, 3.0, 7)[:, None]     # collocation points, shape (7, 1)
u_tt = jax.vmap(jax.grad(jax.grad(u)))''',
    '''d2u = u_tt(t_col)
residual = d2u + 4.0 * u(t_col[:, 0])''',
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def u(t):
    # trial solution, elementwise in t
    return jnp.cos(2.0 * t) + 0.5 * jnp.sin(2.0 * t)

t_col = jnp.linspace(0.0, 3.0, 7)[:, None]     # collocation points, shape (7, 1)
u_tt = jax.vmap(jax.grad(jax.grad(u)))''',
    '''d2u = u_tt(t_col.squeeze(1))
residual = d2u + 4.0 * u(t_col[:, 0])''',
)
CHECK = ("(lambda t: d2u.shape == (7,) and np.allclose(np.asarray(d2u), -4.0 * (np.cos(2 * t) + 0.5 * np.sin(2 * t)), atol=1e-4) "
         "and np.allclose(np.asarray(residual), 0.0, atol=1e-4))(np.linspace(0.0, 3.0, 7))")
