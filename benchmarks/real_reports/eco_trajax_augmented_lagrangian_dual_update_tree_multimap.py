"""Updating the equality and inequality multipliers of an augmented-Lagrangian trajectory optimizer, kept as dicts of arrays, after an inner solve."""

URL = "https://github.com/google/trajax/issues/9"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def constraint_values(u):
    # equality: final position must hit 1.0; inequality: each control stays below 0.4
    return {
        "eq": {"goal": jnp.array([jnp.sum(u) - 1.0])},
        "ineq": {"torque": u - 0.4},
    }

def al_dual_update(duals, cons, rho):
    eq = jax.tree_multimap(lambda lam, c: lam + rho * c, duals["eq"], cons["eq"])
    ineq = jax.tree_multimap(lambda mu, c: jnp.maximum(mu + rho * c, 0.0),
                             duals["ineq"], cons["ineq"])
    return {"eq": eq, "ineq": ineq}

u = jnp.array([0.25, 0.5, 0.1, 0.3])
duals = {"eq": {"goal": jnp.array([0.2])},
         "ineq": {"torque": jnp.array([0.0, 0.3, 0.5, 0.1])}}''',
    "new_duals = al_dual_update(duals, constraint_values(u), 2.0)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def constraint_values(u):
    # equality: final position must hit 1.0; inequality: each control stays below 0.4
    return {
        "eq": {"goal": jnp.array([jnp.sum(u) - 1.0])},
        "ineq": {"torque": u - 0.4},
    }

def al_dual_update(duals, cons, rho):
    eq = jax.tree.map(lambda lam, c: lam + rho * c, duals["eq"], cons["eq"])
    ineq = jax.tree.map(lambda mu, c: jnp.maximum(mu + rho * c, 0.0),
                        duals["ineq"], cons["ineq"])
    return {"eq": eq, "ineq": ineq}

u = jnp.array([0.25, 0.5, 0.1, 0.3])
duals = {"eq": {"goal": jnp.array([0.2])},
         "ineq": {"torque": jnp.array([0.0, 0.3, 0.5, 0.1])}}''',
    "new_duals = al_dual_update(duals, constraint_values(u), 2.0)",
)
CHECK = ("np.allclose(np.asarray(new_duals['eq']['goal']), [0.2 + 2.0 * (1.15 - 1.0)], atol=1e-5) and "
         "np.allclose(np.asarray(new_duals['ineq']['torque']), "
         "np.maximum(np.array([0.0, 0.3, 0.5, 0.1]) + 2.0 * (np.array([0.25, 0.5, 0.1, 0.3]) - 0.4), 0.0), atol=1e-5)")
