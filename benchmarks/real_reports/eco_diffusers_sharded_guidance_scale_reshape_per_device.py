"""Combining unconditional and text-conditioned noise predictions with classifier-free guidance for prompts sharded over devices with several images per device, holding one guidance scale per device."""

URL = "https://github.com/huggingface/diffusers/issues/2016"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''n_devices, per_device, seq_len, latent_dim = 2, 3, 4, 5
# prompt token ids already sharded as (devices, images per device, tokens)
prompt_ids = jnp.arange(n_devices * per_device * seq_len).reshape(n_devices, per_device, seq_len)
guidance_scale = jnp.array([7.5] * n_devices)   # one scale per device

key_u, key_t = jax.random.split(jax.random.key(0))
noise_uncond = jax.random.normal(key_u, (n_devices, per_device, latent_dim))
noise_text = jax.random.normal(key_t, (n_devices, per_device, latent_dim))

def guided_noise(noise_uncond, noise_text, guidance_scale, prompt_ids):
    g = guidance_scale.reshape(prompt_ids.shape[:2])
    return noise_uncond + g[..., None] * (noise_text - noise_uncond)''',
    "noise_pred = guided_noise(noise_uncond, noise_text, guidance_scale, prompt_ids)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''n_devices, per_device, seq_len, latent_dim = 2, 3, 4, 5
# prompt token ids already sharded as (devices, images per device, tokens)
prompt_ids = jnp.arange(n_devices * per_device * seq_len).reshape(n_devices, per_device, seq_len)
guidance_scale = jnp.array([7.5] * n_devices)   # one scale per device

key_u, key_t = jax.random.split(jax.random.key(0))
noise_uncond = jax.random.normal(key_u, (n_devices, per_device, latent_dim))
noise_text = jax.random.normal(key_t, (n_devices, per_device, latent_dim))

def guided_noise(noise_uncond, noise_text, guidance_scale, prompt_ids):
    g = jnp.broadcast_to(guidance_scale[:, None], prompt_ids.shape[:2])
    return noise_uncond + g[..., None] * (noise_text - noise_uncond)''',
    "noise_pred = guided_noise(noise_uncond, noise_text, guidance_scale, prompt_ids)",
)
CHECK = ("noise_pred.shape == (2, 3, 5) and np.allclose(np.asarray(noise_pred), "
         "np.asarray(noise_uncond) + 7.5 * (np.asarray(noise_text) - np.asarray(noise_uncond)), atol=1e-5)")
