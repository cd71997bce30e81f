"""Rendering a sub-pixel-averaged permittivity map by cutting a stack of rasterised layers into 2m-by-2m tiles with a reshape, for a simulation grid whose width is odd."""

URL = "https://github.com/spinsphotonics/pjz/issues/14"
KIND = "diagnose"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np",
    '''def tile_average(layers, m):
    # layers: (n_layers, 2m*H, 2m*W) at twice-m oversampling; average each 2m x 2m tile
    n, h, w = layers.shape
    tiles = jnp.reshape(layers, (n, h // (2 * m), 2 * m, w // (2 * m), 2 * m))
    return tiles.mean(axis=(2, 4))

m = 1
# oversampled raster of 2 material layers on a 40 x 35 grid (odd width)
layers = (jnp.arange(2 * 40 * 35, dtype=jnp.float32).reshape(2, 40, 35) % 5.0) + 1.0''',
    "eps = tile_average(layers, m)",
)
FIXED = ()
CHECK = ""
