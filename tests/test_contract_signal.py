"""The explained card's contract fix for a 2-D convolution asked for a boundary JAX does not
implement (``_contract_signal``): the input padded as SciPy pads it, its values checked
against SciPy's own; in a real IPython shell with real JAX."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.signal
from conftest import Notebook

_SETUP = ("import jax, jax.numpy as jnp\nimport numpy as np\n"
          "from jax.scipy.signal import convolve2d, correlate2d\n"
          "field = jnp.asarray(np.arange(42.0).reshape(6, 7) % 5)\n"
          "kernel = jnp.asarray(np.arange(1.0, {size}).reshape({shape}))")


@pytest.mark.parametrize("function", ["convolve2d", "correlate2d"])
@pytest.mark.parametrize("boundary", ["wrap", "symm"])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4)])
def test_same_mode_matches_scipy(loaded: Notebook, function: str, boundary: str,
                                 shape: tuple[int, int]) -> None:
    loaded.ok(_SETUP.format(size=shape[0] * shape[1] + 1, shape=shape))
    failed = loaded.run(f"out = {function}(field, kernel, mode='same', boundary='{boundary}')")
    (bundle,) = failed.diagnoses
    fix = bundle["fixes"][0]
    assert fix["label"] == "Pad the input as SciPy does"
    assert fix["safe"]
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    field = np.arange(42.0).reshape(6, 7) % 5
    kernel = np.arange(1.0, shape[0] * shape[1] + 1).reshape(shape)
    expected = getattr(scipy.signal, function)(field, kernel, mode="same", boundary=boundary)
    assert np.allclose(np.asarray(loaded["out"]), expected, atol=1e-4)


def test_valid_mode_drops_the_boundary(loaded: Notebook) -> None:
    loaded.ok(_SETUP.format(size=10, shape=(3, 3)))
    failed = loaded.run("out = convolve2d(field, kernel, mode='valid', boundary='wrap')")
    (bundle,) = failed.diagnoses
    assert bundle["fixes"][0]["label"] == "Drop the boundary"
    assert "\nFixed:" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["out"].shape == (4, 5)


def test_a_kernel_larger_than_the_input_is_left_alone(loaded: Notebook) -> None:
    loaded.ok("import jax.numpy as jnp\nfrom jax.scipy.signal import convolve2d\n"
              "x = jnp.ones((2, 2))\nk = jnp.ones((3, 3))")
    failed = loaded.run("out = convolve2d(x, k, mode='same', boundary='wrap')")
    (bundle,) = failed.diagnoses
    assert bundle["fixes"] == []
