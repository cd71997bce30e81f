"""Drawing posterior-predictive samples of a Bayesian linear regression at new input points, feeding in all the posterior samples returned by the sampler (which include the model's deterministic linear-predictor site)."""

URL = "https://github.com/pyro-ppl/numpyro/issues/1772"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def model(site_values, key, X):
    """One draw of a numpyro-style regression model. Any site present in site_values
    is substituted (as numpyro's Predictive does), otherwise it is computed."""
    alpha, beta, sigma = site_values["alpha"], site_values["beta"], site_values["sigma"]
    eta = site_values["eta"] if "eta" in site_values else alpha + beta * X   # deterministic site
    obs = eta + sigma * jax.random.normal(key, (X.shape[0],))                # plate over len(X)
    return {"eta": eta, "obs": obs}

def predictive(model, posterior_samples, key, X):
    n_draws = next(iter(posterior_samples.values())).shape[0]
    keys = jax.random.split(key, n_draws)
    return jax.vmap(lambda values, k: model(values, k, X))(posterior_samples, keys)

# training inputs and the (already computed) posterior samples of the fit
X_train = jnp.linspace(-2.0, 2.0, 40)
alpha_s = jnp.linspace(4.8, 5.2, 6)
beta_s = jnp.linspace(1.1, 1.3, 6)
sigma_s = jnp.linspace(0.9, 1.1, 6)
posterior_samples = {
    "alpha": alpha_s, "beta": beta_s, "sigma": sigma_s,
    "eta": alpha_s[:, None] + beta_s[:, None] * X_train,   # recorded by the sampler
}

X_new = jnp.array([-1.0, 0.0, 0.5, 3.0, 4.0])''',
    "pred = predictive(model, posterior_samples, jax.random.key(0), X_new)",
)
FIXED = (
    CELLS[0],
    CELLS[1],
    '''params_only = {k: v for k, v in posterior_samples.items() if k != "eta"}
pred = predictive(model, params_only, jax.random.key(0), X_new)''',
)
CHECK = ("pred['obs'].shape == (6, 5) and np.allclose(np.asarray(pred['eta']), "
         "np.linspace(4.8, 5.2, 6)[:, None] + np.linspace(1.1, 1.3, 6)[:, None] * np.array([-1.0, 0.0, 0.5, 3.0, 4.0]), atol=1e-5)")
