"""Choosing which image tokens to re-mask in one MaskGIT-style parallel decoding step, picking each row's confidence cutoff from the sorted confidences at a scheduled mask length."""

URL = "https://github.com/google-research/maskgit/issues/7"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nimport math",
    '''def remask_low_confidence(confidence, mask_len):
    # keep the mask on the `mask_len` least confident tokens of each row
    ranked = jnp.sort(confidence, axis=-1)
    cutoff = jnp.take_along_axis(ranked, mask_len, axis=-1)
    return confidence < cutoff

confidence = jnp.array([[0.9, 0.2, 0.5, 0.7, 0.1, 0.6],
                        [0.3, 0.8, 0.4, 0.95, 0.05, 0.5]])
still_unknown = jnp.array([[1, 1, 0, 1, 1, 0],
                           [1, 1, 1, 0, 0, 0]], dtype=bool)

step, total_steps = 1, 4
ratio = math.cos(math.pi / 2 * (step + 1) / total_steps)   # cosine schedule
mask_len = jnp.floor(confidence.shape[-1] * ratio)
mask_len = jnp.maximum(1, jnp.minimum(jnp.sum(still_unknown, axis=-1, keepdims=True) - 1, mask_len))''',
    "new_mask = remask_low_confidence(confidence, mask_len)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nimport math",
    '''def remask_low_confidence(confidence, mask_len):
    # keep the mask on the `mask_len` least confident tokens of each row
    ranked = jnp.sort(confidence, axis=-1)
    cutoff = jnp.take_along_axis(ranked, mask_len, axis=-1)
    return confidence < cutoff

confidence = jnp.array([[0.9, 0.2, 0.5, 0.7, 0.1, 0.6],
                        [0.3, 0.8, 0.4, 0.95, 0.05, 0.5]])
still_unknown = jnp.array([[1, 1, 0, 1, 1, 0],
                           [1, 1, 1, 0, 0, 0]], dtype=bool)

step, total_steps = 1, 4
ratio = math.cos(math.pi / 2 * (step + 1) / total_steps)   # cosine schedule
mask_len = jnp.floor(confidence.shape[-1] * ratio)
mask_len = jnp.maximum(1, jnp.minimum(jnp.sum(still_unknown, axis=-1, keepdims=True) - 1, mask_len)).astype(jnp.int32)''',
    "new_mask = remask_low_confidence(confidence, mask_len)",
)
CHECK = ("np.array_equal(np.asarray(new_mask), np.array([[False, True, True, False, True, False], "
         "[True, False, False, False, True, False]]))")
