"""Continuing a vectorized ensemble sampler after warmup, when the saved state holds one PRNG key per chain."""

URL = "https://github.com/pyro-ppl/numpyro/issues/1916"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp",
    """num_chains = 4

def warmup(rng_key, x0):
    keys = jax.random.split(rng_key, num_chains)
    x = x0 + 0.1 * jax.vmap(lambda k: jax.random.normal(k))(keys)
    return {"x": x, "rng_key": keys}

def sample_step(state):
    rng_key, sub = jax.random.split(state["rng_key"])
    proposal = state["x"] + 0.5 * jax.random.normal(sub, state["x"].shape)
    return {"x": proposal, "rng_key": rng_key}

state = warmup(jax.random.PRNGKey(0), jnp.zeros(num_chains))""",
    """samples = []
for _ in range(3):
    state = sample_step(state)
    samples.append(state["x"])
samples = jnp.stack(samples)""",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """num_chains = 4

def warmup(rng_key, x0):
    keys = jax.random.split(rng_key, num_chains)
    x = x0 + 0.1 * jax.vmap(lambda k: jax.random.normal(k))(keys)
    return {"x": x, "rng_key": keys}

def chain_step(x, key):
    key, sub = jax.random.split(key)
    return x + 0.5 * jax.random.normal(sub), key

def sample_step(state):
    x, keys = jax.vmap(chain_step)(state["x"], state["rng_key"])
    return {"x": x, "rng_key": keys}

state = warmup(jax.random.PRNGKey(0), jnp.zeros(num_chains))""",
    """samples = []
for _ in range(3):
    state = sample_step(state)
    samples.append(state["x"])
samples = jnp.stack(samples)""",
)
CHECK = ("samples.shape == (3, 4) and bool(jnp.isfinite(samples).all()) "
         "and len(set(samples[-1].tolist())) == 4 and state['rng_key'].shape == (4, 2)")
