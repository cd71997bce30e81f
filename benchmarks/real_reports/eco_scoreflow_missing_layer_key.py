"""Restoring a score model from a pretrained checkpoint whose layer names come from a different architecture config."""

URL = "https://github.com/yang-song/score_flow/issues/2"
KIND = "silent"
CELLS = (
    "import jax, jax.numpy as jnp",
    """def init_params(num_convs):
    return {f"Conv_{i}": {"kernel": jnp.zeros((3, 3, 4, 4)), "bias": jnp.zeros(4)} for i in range(num_convs)}

# checkpoint written by the shallow model (2 conv layers)
checkpoint = {f"Conv_{i}": {"kernel": jnp.full((3, 3, 4, 4), 0.1), "bias": jnp.ones(4)} for i in range(2)}

def restore_checkpoint(target, checkpoint):
    return {name: {leaf: checkpoint[name][leaf] for leaf in layer} for name, layer in target.items()}""",
    """target = init_params(num_convs=4)     # config of the deep model
params = restore_checkpoint(target, checkpoint)""",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """def init_params(num_convs):
    return {f"Conv_{i}": {"kernel": jnp.zeros((3, 3, 4, 4)), "bias": jnp.zeros(4)} for i in range(num_convs)}

# checkpoint written by the shallow model (2 conv layers)
checkpoint = {f"Conv_{i}": {"kernel": jnp.full((3, 3, 4, 4), 0.1), "bias": jnp.ones(4)} for i in range(2)}

def restore_checkpoint(target, checkpoint):
    return {name: {leaf: checkpoint[name][leaf] for leaf in layer} for name, layer in target.items()}""",
    """target = init_params(num_convs=len(checkpoint))    # use the config the checkpoint was trained with
params = restore_checkpoint(target, checkpoint)""",
)
CHECK = "sorted(params) == ['Conv_0', 'Conv_1'] and float(params['Conv_1']['bias'].sum()) == 4.0"
