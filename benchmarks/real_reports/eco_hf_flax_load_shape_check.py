"""Loading pretrained weights into a freshly initialised parameter dict with a loader that refuses mismatched shapes."""

URL = "https://github.com/huggingface/transformers/issues/14215"
KIND = "silent"
CELLS = (
    "import numpy as np\nimport jax, jax.numpy as jnp",
    """random_state = {
    ("decoder", "mid", "attn_1", "norm", "bias"): jnp.zeros(512),
    ("decoder", "mid", "attn_1", "norm", "scale"): jnp.ones(512),
}
checkpoint = {
    ("decoder", "mid", "attn_1", "norm", "bias"): np.zeros((1, 1, 1, 512), np.float32),
    ("decoder", "mid", "attn_1", "norm", "scale"): np.ones((1, 1, 1, 512), np.float32),
}

def load_pretrained(checkpoint, random_state, ignore_mismatched_sizes=False):
    state = dict(checkpoint)
    for key in state:
        if key in random_state and state[key].shape != random_state[key].shape:
            if ignore_mismatched_sizes:
                state[key] = random_state[key]
            else:
                raise ValueError(f"cannot load {'/'.join(key)}: stored {state[key].shape}, "
                                 f"model expects {random_state[key].shape}")
    return {k: jnp.asarray(v) for k, v in state.items()}""",
    "params = load_pretrained(checkpoint, random_state)",
)
FIXED = (
    "import numpy as np\nimport jax, jax.numpy as jnp",
    """random_state = {
    ("decoder", "mid", "attn_1", "norm", "bias"): jnp.zeros(512),
    ("decoder", "mid", "attn_1", "norm", "scale"): jnp.ones(512),
}
checkpoint = {
    ("decoder", "mid", "attn_1", "norm", "bias"): np.zeros((1, 1, 1, 512), np.float32),
    ("decoder", "mid", "attn_1", "norm", "scale"): np.ones((1, 1, 1, 512), np.float32),
}

def load_pretrained(checkpoint, random_state, ignore_mismatched_sizes=False):
    state = dict(checkpoint)
    for key in state:
        if key in random_state and state[key].shape != random_state[key].shape:
            if ignore_mismatched_sizes:
                state[key] = random_state[key]
            else:
                raise ValueError(f"cannot load {'/'.join(key)}: stored {state[key].shape}, "
                                 f"model expects {random_state[key].shape}")
    return {k: jnp.asarray(v) for k, v in state.items()}""",
    """# the old checkpoint stored the norm parameters with singleton axes: squeeze them to the model's layout
checkpoint = {k: v.reshape(random_state[k].shape) for k, v in checkpoint.items()}
params = load_pretrained(checkpoint, random_state)""",
)
CHECK = "all(v.shape == (512,) for v in params.values()) and float(sum(v.sum() for v in params.values())) == 512.0"
