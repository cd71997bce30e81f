"""Sampling the posterior of cell-type proportions for a compositional single-cell analysis and saving the run's settings, including the random key, into a results dictionary."""

URL = "https://github.com/scverse/pertpy/issues/689"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''# cell counts: 4 samples x 5 cell types
counts = jnp.array([[120,  40,  65,  10,  15],
                    [ 95,  52,  70,  14,  19],
                    [130,  38,  58,   9,  25],
                    [110,  47,  61,  12,  21]])
cell_types = ["Tuft", "Endocrine", "Enterocyte", "Goblet", "Stem"]

def run_composition_sampler(counts, num_samples=2000, rng_key=0, concentration=1.0):
    """Conjugate Dirichlet-multinomial posterior for the pooled cell-type proportions."""
    rng_key_array = jax.random.key(rng_key)
    sample_key, _ = jax.random.split(rng_key_array)
    alpha = concentration + counts.sum(axis=0)
    draws = jax.random.dirichlet(sample_key, alpha, shape=(num_samples,))
    return {
        "posterior_samples": {"proportions": np.asarray(draws)},
        "params": {"mcmc": {"num_samples": num_samples,
                            "concentration": concentration,
                            "rng_key": np.array(rng_key_array)}},
    }''',
    "results = run_composition_sampler(counts, num_samples=4000, rng_key=42)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''# cell counts: 4 samples x 5 cell types
counts = jnp.array([[120,  40,  65,  10,  15],
                    [ 95,  52,  70,  14,  19],
                    [130,  38,  58,   9,  25],
                    [110,  47,  61,  12,  21]])
cell_types = ["Tuft", "Endocrine", "Enterocyte", "Goblet", "Stem"]

def run_composition_sampler(counts, num_samples=2000, rng_key=0, concentration=1.0):
    """Conjugate Dirichlet-multinomial posterior for the pooled cell-type proportions."""
    rng_key_array = jax.random.key(rng_key)
    sample_key, _ = jax.random.split(rng_key_array)
    alpha = concentration + counts.sum(axis=0)
    draws = jax.random.dirichlet(sample_key, alpha, shape=(num_samples,))
    return {
        "posterior_samples": {"proportions": np.asarray(draws)},
        "params": {"mcmc": {"num_samples": num_samples,
                            "concentration": concentration,
                            "rng_key": np.array(jax.random.key_data(rng_key_array))}},
    }''',
    "results = run_composition_sampler(counts, num_samples=4000, rng_key=42)",
)
# Reference: threefry key(42) holds the words [0, 42]; Dirichlet(1 + column sums) has mean alpha / alpha.sum().
CHECK = ("(lambda alpha: results['posterior_samples']['proportions'].shape == (4000, 5) "
         "and np.array_equal(results['params']['mcmc']['rng_key'], np.array([0, 42], dtype=np.uint32)) "
         "and np.allclose(results['posterior_samples']['proportions'].sum(axis=1), 1.0, atol=1e-5) "
         "and np.allclose(results['posterior_samples']['proportions'].mean(axis=0), alpha / alpha.sum(), atol=3e-3))"
         "(1.0 + np.array([455, 177, 254, 45, 80], dtype=np.float64))")
