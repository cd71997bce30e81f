"""Computing pointwise log-likelihoods of a Bayesian linear regression for every posterior draw, using samples kept grouped by chain so the values can be compared chain by chain."""

URL = "https://github.com/pyro-ppl/numpyro/issues/645"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def obs_log_prob(site_values, X, Y):
    """numpyro-style model likelihood for ONE posterior draw (scalar a, b)."""
    mu_hat = site_values["a"] + site_values["b"] * X
    return -0.5 * (Y - mu_hat) ** 2 - 0.5 * jnp.log(2 * jnp.pi)    # Normal(mu_hat, 1)

def log_likelihood(posterior_samples, X, Y):
    """Stand-in for numpyro.infer.util.log_likelihood: vmaps the model over the draws."""
    return jax.vmap(lambda s: obs_log_prob(s, X, Y))(posterior_samples)

X = jnp.linspace(-2.0, 2.0, 12)
Y = 0.5 * X + jnp.cos(3.0 * X)
# posterior draws as returned by mcmc.get_samples(group_by_chain=True): (num_chains, num_samples)
samples = {"a": jnp.linspace(-0.2, 0.2, 2 * 5).reshape(2, 5),
           "b": jnp.linspace(0.4, 0.6, 2 * 5).reshape(2, 5)}''',
    "lls = log_likelihood(samples, X, Y)",
)
FIXED = (
    CELLS[0],
    CELLS[1],
    "lls = jax.vmap(lambda chain_samples: log_likelihood(chain_samples, X, Y))(samples)   # map over chains too",
)
CHECK = ("(lambda A, B, Xn: lls.shape == (2, 5, 12) and np.allclose(np.asarray(lls), "
         "-0.5 * (0.5 * Xn + np.cos(3.0 * Xn) - (A[..., None] + B[..., None] * Xn)) ** 2 - 0.5 * np.log(2 * np.pi), atol=1e-5))("
         "np.linspace(-0.2, 0.2, 10).reshape(2, 5), np.linspace(0.4, 0.6, 10).reshape(2, 5), np.linspace(-2.0, 2.0, 12))")
