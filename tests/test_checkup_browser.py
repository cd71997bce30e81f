"""The kernel checkup's finding as the JupyterLab card shows it, in a real JupyterLab and
Chromium: the kernel, what was found, and a link to the kernel's line."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
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
    "import jax, jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n"
    "from jax.experimental.pallas import tpu as pltpu\nx = jnp.ones((32, 128))",
    "def total_kernel(x_ref, o_ref):\n    o_ref[...] += x_ref[...]\n\n"
    "def total(x):\n    return pl.pallas_call(\n"
    "        total_kernel, grid=(4,), in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],\n"
    "        out_specs=pl.BlockSpec((8, 128), lambda i: (0, 0)),\n"
    "        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))(x)",
    "%%jax_nbhelp check\nout = total(x)",
]


@contextlib.contextmanager
def _first_card(folder: Path, name: str, cells: list[str]) -> Iterator[tuple[Any, Any]]:
    """The notebook of ``cells`` run in JupyterLab at 1400x900: the page and its first card."""
    lab_driver.write_notebook(folder / name, cells)
    with lab_driver.jupyterlab(folder) as url, lab_driver.chromium(1400, 900) as page:
        lab_driver.open_notebook(page, url, name)
        lab_driver.run_all(page)
        card = page.locator(".jnh-native").first
        card.wait_for(timeout=240_000)
        lab_driver.wait_idle(page)
        yield page, card


def test_a_finding_is_a_card_with_the_kernels_line(tmp_path: Path) -> None:
    with _first_card(tmp_path, "check.ipynb", CELLS) as (_page, card):
        text = card.inner_text()
        assert "A Pallas kernel read memory it never wrote" in text
        assert "total_kernel" in text
        link = card.locator("button.jnh-locate", has_text="In [3], line 2").first
        assert link.count() == 1
        height = card.evaluate("c => c.getBoundingClientRect().height")
        assert height < 300, height


def test_check_this_kernel_after_a_fix_then_its_finding_fixed(tmp_path: Path) -> None:
    """The kernel card's fix runs; its outcome offers the checkup; the finding's card
    follows inside it; its fix writes the initialisation into the kernel's cell."""
    cells = [*CELLS[:3], "out = total(x)"]
    with _first_card(tmp_path, "fix_then_check.ipynb", cells) as (page, card):
        assert card.locator("button", has_text="Check this kernel").count() == 1
        card.locator(".jnh-primary-button").first.click()
        check = card.locator(".jnh-check-row button", has_text="Check this kernel")
        check.wait_for(timeout=240_000)
        check.click()
        found = page.locator(".jnh-native[data-jnh-code='JNH642']").first
        found.wait_for(timeout=300_000)
        assert "The kernel checkup found a bug." in card.locator(".jnh-outcome").first.inner_text()
        found.locator(".jnh-primary-button", has_text="Initialise it").click()
        found.locator(".jnh-outcome.jnh-ok").first.wait_for(timeout=300_000)
        kernel_cell = page.locator(".jp-Cell").nth(2).locator(".cm-content").inner_text()
        assert "@pl.when(pl.program_id(0) == 0)" in kernel_cell
        assert "o_ref[...] = jnp.zeros(o_ref.shape, o_ref.dtype)" in kernel_cell
