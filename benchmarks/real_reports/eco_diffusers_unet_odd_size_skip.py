"""Running an image through a tiny UNet whose spatial size is not a multiple of the downsampling factor."""

URL = "https://github.com/huggingface/diffusers/issues/3762"
KIND = "diagnose"
CELLS = (
    "import jax, jax.numpy as jnp",
    """def downsample(x):                      # (H, W, C) -> (H//2, W//2, C), average pooling
    h, w, c = x.shape
    x = x[: h // 2 * 2, : w // 2 * 2]
    return x.reshape(h // 2, 2, w // 2, 2, c).mean(axis=(1, 3))

def upsample(x):                        # nearest neighbour x2
    return jnp.repeat(jnp.repeat(x, 2, axis=0), 2, axis=1)

def tiny_unet(x):
    skip = x
    h = downsample(x) * 2.0
    h = upsample(h)
    h = jnp.concatenate([h, skip], axis=-1)
    return h.mean(axis=-1, keepdims=True)""",
    """image = jnp.ones((5, 7, 1))
out = tiny_unet(image)""",
)
FIXED = (
    "import jax, jax.numpy as jnp",
    """def downsample(x):                      # (H, W, C) -> (H//2, W//2, C), average pooling
    h, w, c = x.shape
    x = x[: h // 2 * 2, : w // 2 * 2]
    return x.reshape(h // 2, 2, w // 2, 2, c).mean(axis=(1, 3))

def upsample(x):                        # nearest neighbour x2
    return jnp.repeat(jnp.repeat(x, 2, axis=0), 2, axis=1)

def tiny_unet(x):
    skip = x
    h = downsample(x) * 2.0
    h = upsample(h)
    h = jnp.concatenate([h, skip], axis=-1)
    return h.mean(axis=-1, keepdims=True)""",
    """image = jnp.ones((5, 7, 1))
h, w = image.shape[0] // 2 * 2, image.shape[1] // 2 * 2   # crop to a multiple of 2
out = tiny_unet(image[:h, :w])""",
)
# each pixel: mean of (2.0, 1.0) = 1.5
CHECK = "out.shape == (4, 6, 1) and bool((out == 1.5).all())"
