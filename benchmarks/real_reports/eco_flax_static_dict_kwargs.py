"""Creating model parameters with a jitted init function that marks a dict of model settings as static."""

URL = "https://github.com/google/flax/issues/587"
KIND = "fix"
CELLS = (
    "import functools\nimport jax, jax.numpy as jnp",
    """@functools.partial(jax.jit, static_argnums=(1,))
def create_params(key, model_kwargs):
    emb = jax.random.normal(key, (model_kwargs["vocab_size"], model_kwargs["emb_dim"]))
    out = jnp.zeros((model_kwargs["emb_dim"], model_kwargs["vocab_size"]))
    return {"embedding": emb, "output": out}

model_kwargs = {"vocab_size": 11, "emb_dim": 4}""",
    "params = create_params(jax.random.PRNGKey(0), model_kwargs)",
)
FIXED = (
    "import functools\nimport jax, jax.numpy as jnp",
    """@functools.partial(jax.jit, static_argnums=(1,))
def create_params(key, model_kwargs_items):
    model_kwargs = dict(model_kwargs_items)
    emb = jax.random.normal(key, (model_kwargs["vocab_size"], model_kwargs["emb_dim"]))
    out = jnp.zeros((model_kwargs["emb_dim"], model_kwargs["vocab_size"]))
    return {"embedding": emb, "output": out}

model_kwargs = {"vocab_size": 11, "emb_dim": 4}""",
    "params = create_params(jax.random.PRNGKey(0), tuple(sorted(model_kwargs.items())))",
)
CHECK = ("params['embedding'].shape == (11, 4) and params['output'].shape == (4, 11) "
         "and float(jnp.abs(params['output']).sum()) == 0.0")
