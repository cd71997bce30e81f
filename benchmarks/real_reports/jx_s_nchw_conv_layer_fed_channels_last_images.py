"""Running a first convolution layer written for channels-first (NCHW) images on a batch of RGB images loaded channels-last (NHWC)."""

URL = "https://github.com/jax-ml/jax/issues/3289"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''def conv_stem(images, kernel):
    # model code ported from a PyTorch ResNet: images are (N, C, H, W), kernel is (O, I, kh, kw)
    return lax.conv_general_dilated(images, kernel, window_strides=(1, 1), padding="VALID",
                                    dimension_numbers=("NCHW", "OIHW", "NCHW"))

kernel = jnp.arange(8 * 3 * 3 * 3, dtype=jnp.float32).reshape(8, 3, 3, 3) / 100.0
# image loader yields (batch, height, width, rgb)
images = (jnp.arange(2 * 10 * 10 * 3, dtype=jnp.float32).reshape(2, 10, 10, 3) % 7.0) / 7.0''',
    "features = conv_stem(images, kernel)",
)
FIXED = (
    CELLS[0],
    CELLS[1],
    "features = conv_stem(jnp.transpose(images, (0, 3, 1, 2)), kernel)",
)
CHECK = ("features.shape == (2, 8, 8, 8) and np.allclose(np.asarray(features)[1, 5, 2, 4], "
         "(((np.arange(600, dtype=np.float32).reshape(2, 10, 10, 3) % 7.0) / 7.0)[1, 2:5, 4:7, :] * "
         "np.transpose(np.arange(216, dtype=np.float32).reshape(8, 3, 3, 3)[5] / 100.0, (1, 2, 0))).sum(), atol=1e-3)")
