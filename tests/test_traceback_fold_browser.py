"""JAX's frames folded out of the traceback where the JupyterLab extension does not fold it,
in a real JupyterLab and Chromium: with the extension disabled (as VS Code, Colab and Notebook
6 are), the failing Pallas cell's traceback above the card is short and `%jax_nbhelp
traceback` prints every frame; with the extension, the kernel leaves IPython's traceback whole
(the extension said it folds) and the page folds it, with the whole one a click away."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import lab_driver
import pytest

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(lab_driver.missing() is not None and not os.environ.get("CI"),
                       reason=f"browser test: {lab_driver.missing()}"),
]

CELLS = [
    "%load_ext jax_nbhelp",
    "import jax, jax.numpy as jnp\nfrom jax.experimental import pallas as pl",
    "def add_one(x_ref, o_ref):\n    o_ref[...] = x_ref[...] + 1\n"
    "kernel = pl.pallas_call(add_one, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))",
    "out = kernel(jnp.ones((8, 128)))",
    "%jax_nbhelp traceback",
]
FOLDED = "inside JAX: `%jax_nbhelp traceback` shows"
ERROR = ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"


def _error_text(page: Any, cell: int) -> str:
    return str(page.evaluate(
        "([cell, sel]) => { const c = document.querySelectorAll('.jp-Notebook .jp-Cell')[cell];"
        " const e = c.querySelector(sel); return e ? e.innerText : ''; }", [cell, ERROR]))


def _run_cell(page: Any, index: int) -> None:
    page.evaluate(
        f"i => {{ {lab_driver.PANEL}.content.activeCellIndex = i;"
        " return window.jupyterapp.commands.execute('notebook:run-cell'); }", index)


def _failing_card(page: Any, selector: str) -> None:
    lab_driver.run_all(page)
    page.locator(selector).first.wait_for(timeout=180_000)
    lab_driver.wait_idle(page)


def test_without_the_extension_the_kernel_folds_jaxs_frames(tmp_path: Path) -> None:
    lab_driver.write_notebook(tmp_path / "fold.ipynb", CELLS)
    with lab_driver.jupyterlab(tmp_path, extension=False) as url, \
            lab_driver.chromium(1400, 900) as page:
        lab_driver.open_notebook(page, url, "fold.ipynb")
        _failing_card(page, "[class*=jnh-live-] .jnh-native")
        shown = _error_text(page, 3)
        assert FOLDED in shown, shown
        assert "Cell In[4], line 1" in shown  # the user's frame stays
        assert "Only interpret mode is supported on CPU backend" in shown
        assert len(shown.strip().splitlines()) <= 30, shown
        _run_cell(page, 4)
        page.wait_for_function(
            "() => document.querySelectorAll('.jp-Notebook .jp-Cell')[4]"
            ".querySelector('.jp-OutputArea-output') !== null", timeout=60_000)
        lab_driver.wait_idle(page)
        whole = str(page.evaluate(
            "() => document.querySelectorAll('.jp-Notebook .jp-Cell')[4].innerText"))
        assert FOLDED not in whole
        assert "pallas_call.py:1355" in whole or "pallas_call.py" in whole
        assert len(whole.splitlines()) > len(shown.splitlines()) + 20, whole


def test_with_the_extension_the_page_folds_and_keeps_the_whole_traceback(
        tmp_path: Path) -> None:
    lab_driver.write_notebook(tmp_path / "fold.ipynb", CELLS)
    with lab_driver.jupyterlab(tmp_path) as url, lab_driver.chromium(1400, 900) as page:
        lab_driver.open_notebook(page, url, "fold.ipynb")
        _failing_card(page, ".jnh-native")
        toggle = page.locator("button", has_text="Show the whole traceback").first
        toggle.wait_for(timeout=60_000)
        toggle.click()
        shown = _error_text(page, 3)
        assert FOLDED not in shown  # the kernel left IPython's traceback whole
        assert "skipping hidden" in shown or "pallas_call.py" in shown
