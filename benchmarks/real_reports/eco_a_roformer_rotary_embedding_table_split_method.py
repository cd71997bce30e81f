"""Applying RoFormer-style rotary position embeddings to a small query tensor, splitting the stored [sin | cos] position table into its two halves with the array's .split method."""

URL = "https://github.com/huggingface/transformers/issues/36854"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def sinusoidal_table(n_pos, dim):
    inv_freq = 1.0 / (10000.0 ** (jnp.arange(0, dim, 2) / dim))
    angles = jnp.arange(n_pos)[:, None] * inv_freq[None, :]
    return jnp.concatenate([jnp.sin(angles), jnp.cos(angles)], axis=-1)   # (n_pos, dim)

def apply_rotary(table, q):
    sin, cos = table.split(2, axis=-1)
    sin = jnp.repeat(sin, 2, axis=-1)
    cos = jnp.repeat(cos, 2, axis=-1)
    q_pairs_rot = jnp.stack([-q[..., 1::2], q[..., ::2]], axis=-1).reshape(q.shape)
    return q * cos + q_pairs_rot * sin

# 5 positions, head dimension 4
q = jnp.asarray(np.arange(20, dtype=np.float32).reshape(5, 4) / 10.0 - 0.8)
table = sinusoidal_table(5, 4)''',
    "q_rot = apply_rotary(table, q)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def sinusoidal_table(n_pos, dim):
    inv_freq = 1.0 / (10000.0 ** (jnp.arange(0, dim, 2) / dim))
    angles = jnp.arange(n_pos)[:, None] * inv_freq[None, :]
    return jnp.concatenate([jnp.sin(angles), jnp.cos(angles)], axis=-1)   # (n_pos, dim)

def apply_rotary(table, q):
    # JAX arrays have no .split method; use the jnp function
    sin, cos = jnp.split(table, 2, axis=-1)
    sin = jnp.repeat(sin, 2, axis=-1)
    cos = jnp.repeat(cos, 2, axis=-1)
    q_pairs_rot = jnp.stack([-q[..., 1::2], q[..., ::2]], axis=-1).reshape(q.shape)
    return q * cos + q_pairs_rot * sin

# 5 positions, head dimension 4
q = jnp.asarray(np.arange(20, dtype=np.float32).reshape(5, 4) / 10.0 - 0.8)
table = sinusoidal_table(5, 4)''',
    "q_rot = apply_rotary(table, q)",
)
CHECK = ("(lambda Q, th: np.allclose(np.asarray(q_rot), np.stack(["
         "Q[:, 0::2] * np.cos(th) - Q[:, 1::2] * np.sin(th), "
         "Q[:, 1::2] * np.cos(th) + Q[:, 0::2] * np.sin(th)], axis=-1).reshape(5, 4), atol=1e-5))"
         "(np.arange(20).reshape(5, 4) / 10.0 - 0.8, np.arange(5)[:, None] * (1.0 / 10000.0 ** (np.array([0.0, 2.0]) / 4)))")
