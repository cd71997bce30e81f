"""Serving a language model from a train-state checkpoint whose parameters are nested one 'params' level too deep."""

URL = "https://github.com/young-geng/EasyLM/issues/103"
KIND = "silent"
CELLS = (
    "import jax, jax.numpy as jnp",
    """def apply(variables, tokens):
    p = variables["params"]
    h = p["embed"]["embedding"][tokens]
    return h @ p["lm_head"]["kernel"]

params = {
    "embed": {"embedding": jnp.eye(4)},
    "lm_head": {"kernel": jnp.full((4, 4), 0.25)},
}
train_state = {"step": 100, "params": {"params": params}}   # as saved by the trainer""",
    """variables = {"params": train_state["params"]}
logits = apply(variables, jnp.array([0, 2]))""",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """def apply(variables, tokens):
    p = variables["params"]
    h = p["embed"]["embedding"][tokens]
    return h @ p["lm_head"]["kernel"]

params = {
    "embed": {"embedding": jnp.eye(4)},
    "lm_head": {"kernel": jnp.full((4, 4), 0.25)},
}
train_state = {"step": 100, "params": {"params": params}}   # as saved by the trainer""",
    """variables = train_state["params"]          # already of the form {"params": ...}
logits = apply(variables, jnp.array([0, 2]))""",
)
CHECK = "logits.shape == (2, 4) and bool((logits == 0.25).all())"
