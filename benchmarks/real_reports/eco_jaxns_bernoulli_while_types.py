"""Random-walk exploration of a patient model in a while_loop whose carry starts from a Bernoulli (boolean) draw."""

URL = "https://github.com/Joshuaalbert/jaxns/issues/69"
KIND = "diagnose"
CELLS = (
    "import jax, jax.numpy as jnp",
    """def sample_prior(key):
    k1, k2 = jax.random.split(key)
    disease = jax.random.bernoulli(k1, 0.3)
    treatment = jax.random.bernoulli(k2, 0.6)
    return disease, treatment

def cond(state):
    i, key, disease = state
    return i < 5

def body(state):
    i, key, disease = state
    key, sub = jax.random.split(key)
    disease = disease + 0.5 * jax.random.normal(sub)
    return i + 1, key, disease

disease, treatment = sample_prior(jax.random.PRNGKey(0))""",
    "i, key, disease = jax.lax.while_loop(cond, body, (0, jax.random.PRNGKey(1), disease))",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """def sample_prior(key):
    k1, k2 = jax.random.split(key)
    disease = jax.random.bernoulli(k1, 0.3).astype(jnp.float32)
    treatment = jax.random.bernoulli(k2, 0.6).astype(jnp.float32)
    return disease, treatment

def cond(state):
    i, key, disease = state
    return i < 5

def body(state):
    i, key, disease = state
    key, sub = jax.random.split(key)
    disease = disease + 0.5 * jax.random.normal(sub)
    return i + 1, key, disease

disease, treatment = sample_prior(jax.random.PRNGKey(0))""",
    "i, key, disease = jax.lax.while_loop(cond, body, (0, jax.random.PRNGKey(1), disease))",
)
CHECK = "int(i) == 5 and disease.dtype == jnp.float32 and disease.shape == () and bool(jnp.isfinite(disease))"
