"""Computing one level of a Haar wavelet decomposition of a batch of signals with lax.conv_general_dilated and a two-filter bank built from float32 coefficients, after storing the signals in float16 to save memory."""

URL = "https://github.com/v0lta/Jax-Wavelet-Toolbox/issues/6"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''c = 1.0 / np.sqrt(2.0)
# (out_channels=2, in_channels=1, width=2): low-pass and high-pass Haar analysis filters
haar_bank = jnp.array([[[c, c]], [[c, -c]]], dtype=jnp.float32)

raw = np.array([[4.0, 2.0, 6.0, 6.0, 1.0, 3.0, 8.0, 0.0],
                [1.0, 1.0, 2.0, 4.0, 7.0, 5.0, 3.0, 3.0]])
signals = jnp.asarray(raw[:, None, :], dtype=jnp.float16)   # (batch, channel, time)

def haar_level(x):
    return lax.conv_general_dilated(x, haar_bank, window_strides=(2,), padding="VALID")''',
    "coeffs = haar_level(signals)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''c = 1.0 / np.sqrt(2.0)
# (out_channels=2, in_channels=1, width=2): low-pass and high-pass Haar analysis filters
haar_bank = jnp.array([[[c, c]], [[c, -c]]], dtype=jnp.float32)

raw = np.array([[4.0, 2.0, 6.0, 6.0, 1.0, 3.0, 8.0, 0.0],
                [1.0, 1.0, 2.0, 4.0, 7.0, 5.0, 3.0, 3.0]])
signals = jnp.asarray(raw[:, None, :], dtype=jnp.float16)   # (batch, channel, time)

def haar_level(x):
    return lax.conv_general_dilated(x, haar_bank.astype(x.dtype), window_strides=(2,), padding="VALID")''',
    "coeffs = haar_level(signals)",
)
CHECK = "coeffs.shape == (2, 2, 4) and coeffs.dtype == jnp.float16 and np.allclose(np.asarray(coeffs, dtype=np.float64)[:, 0], (raw[:, 0::2] + raw[:, 1::2]) / np.sqrt(2.0), rtol=5e-3, atol=5e-3) and np.allclose(np.asarray(coeffs, dtype=np.float64)[:, 1], (raw[:, 0::2] - raw[:, 1::2]) / np.sqrt(2.0), rtol=5e-3, atol=5e-3)"
