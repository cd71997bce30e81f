"""The lasting fix in a real browser: on a CPU runtime the first button of a kernel compiled
for the CPU is "Interpret mode from now on"; after it, "Keep it in the notebook" writes the
set-up line after `%load_ext jax_nbhelp`, so the saved notebook runs top to bottom in a
fresh kernel with no click (JupyterLab 4 and Notebook 7, Debian's Chromium)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import lab_driver
import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(lab_driver.missing() is not None and not os.environ.get("CI"),
                       reason=f"browser test: {lab_driver.missing()}"),
]

CELLS = [
    "%load_ext jax_nbhelp",
    "import jax, jax.numpy as jnp\nfrom jax.experimental import pallas as pl",
    "def add_one(x_ref, o_ref):\n    o_ref[...] = x_ref[...] + 1\n\n"
    "add_one_kernel = pl.pallas_call(add_one, out_shape=jax.ShapeDtypeStruct((8, 128), "
    "jnp.float32))\nout = add_one_kernel(jnp.ones((8, 128)))",
    "double = pl.pallas_call(lambda x_ref, o_ref: o_ref.__setitem__(..., x_ref[...] * 2),\n"
    "                        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))\n"
    "print('double', float(double(jnp.ones((8, 128))).sum()))",
]
PANEL = lab_driver.PANEL
SHOTS = os.environ.get("JAX_NBHELP_SCREENSHOTS")


def _check_the_fixed_card(page: Any, card: Any) -> None:
    """After "Fixed" the card is one line with its outcome, in view; Copy as Markdown gives
    the cause, the fix applied and the versions."""
    assert "jnh-collapsed" in (card.get_attribute("class") or "")
    assert not card.locator(".jnh-primary").is_visible()
    in_view = card.locator(".jnh-outcome-area").evaluate(
        "e => { const r = e.getBoundingClientRect(); "
        "return r.top >= 0 && r.bottom <= window.innerHeight; }")
    assert in_view
    height = card.evaluate("e => e.getBoundingClientRect().height")
    assert height < 300, height
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    card.locator("button.jnh-copy-md").click()
    page.wait_for_function("() => document.querySelector('.jnh-copy-md').textContent"
                           " === 'Copied'", timeout=10_000)
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert copied.startswith("### Pallas kernel compiled for the CPU without interpret mode "
                             "(jax_nbhelp JNH201)"), copied
    assert "**Fix applied:** Interpret mode from now on (fixed)" in copied
    assert "**Versions:** python 3." in copied
    assert "backend cpu" in copied
    card.locator("button.jnh-collapse").click()  # the details, one click away
    assert card.locator(".jnh-primary").is_visible()
    card.locator("button.jnh-collapse").click()


@pytest.mark.parametrize("app", ["jupyterlab", "notebook"])
def test_the_first_fix_lasts_and_is_kept_in_the_notebook(tmp_path: Path, app: str) -> None:
    lab_driver.write_notebook(tmp_path / "tutorial.ipynb", CELLS)
    with lab_driver.jupyterlab(tmp_path, app=app) as url, \
            lab_driver.chromium(1400, 900) as page:
        lab_driver.open_in(page, url, app, "tutorial.ipynb")
        card = lab_driver.live_card(page)
        first = card.locator("button.jnh-button").first
        assert "Interpret mode from now on" in first.inner_text()
        first.click()
        card.locator(".jnh-ok").wait_for(timeout=180_000)
        outcome = card.locator(".jnh-outcome-area")
        assert "✓ Fixed." in outcome.inner_text()
        _check_the_fixed_card(page, card)
        keep = card.locator("button.jnh-keep-button")
        assert "%jax_nbhelp interpret hlo" in outcome.inner_text()
        if SHOTS:
            keep.scroll_into_view_if_needed()
            page.screenshot(path=str(Path(SHOTS) / f"keep-{app}.png"))
        keep.click()
        card.locator(".jnh-kept").wait_for(timeout=10_000)
        assert lab_driver.cell_source(page, 0) == "%load_ext jax_nbhelp\n%jax_nbhelp interpret hlo"
        # The traceback above is marked as from before the fix.
        assert page.locator(".jp-OutputArea-child.jnh-replaced").count() >= 1
        # The next cell, which Run All never reached, builds a kernel: the card offers to
        # run it, and it needs no other click.
        card.locator("button.jnh-run-below-button").click()
        page.wait_for_function(
            f"() => {PANEL}.content.widgets[3].model.outputs.toJSON()"
            ".some(o => (o.text || '').includes('double 2048.0'))", timeout=120_000)
        lab_driver.save(page)
        page.wait_for_function(f"() => !{PANEL}.context.model.dirty", timeout=30_000)

    # "Restart kernel and run all": the saved notebook runs to its end in a fresh kernel.
    nb = nbformat.read(tmp_path / "tutorial.ipynb", as_version=4)
    client = NotebookClient(nb, timeout=300, startup_timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    printed = "".join(o.get("text", "") for o in nb.cells[3].outputs)
    assert "double 2048.0" in printed
