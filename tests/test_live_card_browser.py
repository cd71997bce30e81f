"""The anywidget card in a real browser, where jax_nbhelp's JupyterLab extension does not run
(disabled here, as VS Code and Colab cannot load it): JupyterLab 4 and Notebook 7 on
127.0.0.1, Chromium driven by Playwright. It is the native card's own TypeScript, so it shows
the same heading, cause and primary button; a click on the primary button fixes the cell.
"""

from __future__ import annotations

import os
from pathlib import Path

import lab_driver
import pytest

from jax_nbhelp.show.card import live

pytestmark = [
    pytest.mark.browser,
    # Under CI a missing browser is a broken set-up, not a reason to pass silently.
    pytest.mark.skipif(lab_driver.missing() is not None and not os.environ.get("CI"),
                       reason=f"browser test: {lab_driver.missing()}"),
]

SHOTS = os.environ.get("JAX_NBHELP_SCREENSHOTS")
LIVE = "[class*=jnh-live-] .jnh-native"
CHECK = "print(out.shape, float(out[0, 0]))"


@pytest.mark.parametrize("app", ["jupyterlab", "notebook"])
def test_the_anywidget_card_is_the_native_card_and_its_primary_button_fixes(
        tmp_path: Path, app: str) -> None:
    assert live.built(), "pip install builds the card's module (jax_nbhelp/show/static)"
    lab_driver.write_notebook(tmp_path / "card.ipynb", [*lab_driver.FLAGSHIP_CELLS, CHECK])
    with lab_driver.jupyterlab(tmp_path, extension=False, app=app) as url, \
            lab_driver.chromium(1400, 900) as page:
        lab_driver.open_in(page, url, app, "card.ipynb")
        lab_driver.run_all(page)
        card = page.locator(LIVE).first
        card.wait_for(timeout=180_000)
        lab_driver.wait_idle(page)
        assert card.get_attribute("data-jnh-code") == "JNH101"
        heading = card.locator("[role=heading]").inner_text()
        assert heading.startswith("Collective run_scoped compiled outside a Pallas kernel")
        cause = card.locator(".jnh-cause").inner_text()
        assert "call at In [3], line 5" in cause
        primary = card.locator(".jnh-primary button.jnh-primary-button")
        assert "Remove collective_axes" in primary.inner_text()
        assert "Run as one program" in card.locator(".jnh-others").inner_text()
        # one card on screen: the static copy hides while the live one is there
        static = page.locator("[class*=jnh-static-]").first
        assert not static.is_visible()
        if SHOTS:
            card.screenshot(path=str(Path(SHOTS) / f"anywidget_card_{app}.png"))
        primary.click()
        outcome = card.locator(".jnh-outcome-area")
        card.locator(".jnh-ok").wait_for(timeout=180_000)
        text = outcome.inner_text()
        assert "✓ Fixed." in text
        assert "Fixed source of In [3]" in text
        copied = card.locator("pre.jnh-copy").inner_text()
        assert "collective_axes" not in copied
        assert "pl.run_scoped(body" in copied
        if SHOTS:
            card.screenshot(path=str(Path(SHOTS) / f"anywidget_card_{app}_fixed.png"))
        # the kernel holds the fixed result: the last cell, run now, reads it
        page.evaluate(f"""() => {{ const nb = {lab_driver.PANEL}.content;
                       nb.activeCellIndex = 4; }}""")
        page.evaluate("window.jupyterapp.commands.execute('notebook:run-cell')")
        page.wait_for_function(
            """() => Array.from(document.querySelectorAll(".jp-Notebook .jp-Cell")[4]
                   .querySelectorAll('.jp-OutputArea-output'))
                   .some(o => o.innerText.includes('(8, 128) 3.0'))""",
            timeout=120_000)
