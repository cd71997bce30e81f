"""A long fix's progress in a real browser (JupyterLab 4, Debian's Chromium, 1400x900): the
card's bar follows the grid steps TPU interpret mode counts, with the time left, and its
Stop button ends only the fix. On the way, the card's text format and the folded traceback
above it are checked. The kernel is long by construction (4,096 grid steps, half a
minute here) and the test stops it at the bar's first steps, so no machine is too fast."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import lab_driver
import pytest

from jax_nbhelp.catalog.pallas.pallas_kernel_compiled_for_cpu import BIG_MATMUL

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(lab_driver.missing() is not None and not os.environ.get("CI"),
                       reason=f"browser test: {lab_driver.missing()}"),
]

CELLS = [
    "%load_ext jax_nbhelp\n"
    "import jax_nbhelp.fix.rerun as r\n"
    "r.PROGRESS_AFTER = r.PROGRESS_EVERY = 0.2  # reports from the start",
    BIG_MATMUL,
    "x = jnp.ones((2048, 2048))\nout = matmul(x, x)",
]
SHOTS = os.environ.get("JAX_NBHELP_SCREENSHOTS")


def _check_text_and_folding(page: Any, card: Any) -> None:
    """The card's sentences show `inline code` as code, its title copies as words apart
    from its code, and the folded traceback above it shows its end (the error line) when
    first folded and when folded again."""
    codes = card.locator(".jnh-text code").evaluate_all("els => els.map(e => e.textContent)")
    assert "%jax_nbhelp interpret off" in codes, codes
    assert "`" not in card.locator(".jnh-text").first.inner_text()
    title = card.locator(".jnh-title").evaluate("t => t.textContent")
    assert title.endswith(" jax_nbhelp JNH201"), title
    toggle = page.locator(".jnh-fold-toggle").first
    at_end = ("() => { const p = document.querySelector('.jnh-folded "
              ".jp-OutputArea-output pre'); return p !== null && "
              "p.scrollHeight > p.clientHeight && "
              "p.scrollTop + p.clientHeight >= p.scrollHeight - 2; }")
    page.wait_for_function(at_end, timeout=10_000)
    toggle.click()  # the whole traceback
    assert page.locator(".jnh-folded").count() == 0
    toggle.click()  # folded again: the end, not the top
    page.wait_for_function(at_end, timeout=10_000)


def _check_the_location_links(page: Any, card: Any) -> None:
    """ "In [2], line N" selects that cell, scrolled into view, with line N selected."""
    link = card.locator("button.jnh-locate").first
    label = link.inner_text()
    match = re.fullmatch(r"In \[(\d+)\], line (\d+)", label)
    assert match, label
    cell, line = int(match.group(1)), int(match.group(2))
    link.click()
    panel = lab_driver.PANEL
    page.wait_for_function(f"() => {panel}.content.activeCellIndex === {cell - 1}",
                           timeout=10_000)
    selected = page.evaluate(f"() => {panel}.content.activeCell.editor.getSelection()")
    assert selected["start"]["line"] == line - 1, selected
    assert selected["end"]["column"] > 0
    in_view = page.evaluate(f"() => {{ const r = {panel}.content.activeCell.node"
                            ".getBoundingClientRect(); return r.bottom > 0 && "
                            "r.top < window.innerHeight; }")
    assert in_view
    card.scroll_into_view_if_needed()


def test_the_card_draws_the_grid_steps_and_stops_the_fix(tmp_path: Path) -> None:
    lab_driver.write_notebook(tmp_path / "long.ipynb", CELLS)
    with lab_driver.jupyterlab(tmp_path) as url, lab_driver.chromium(1400, 900) as page:
        lab_driver.open_in(page, url, "jupyterlab", "long.ipynb")
        card = lab_driver.live_card(page)
        _check_text_and_folding(page, card)
        _check_the_location_links(page, card)
        first = card.locator("button.jnh-button").first
        assert "Interpret mode from now on" in first.inner_text()
        first.click()
        bar = card.locator("progress.jnh-progress:not([hidden])")
        bar.wait_for(timeout=180_000)
        status = card.locator(".jnh-status")
        page.wait_for_function(
            "() => /grid step [0-9,]+ of 4,096 .* left/.test("
            "document.querySelector('.jnh-native .jnh-status').textContent)", timeout=60_000)
        assert 0 < float(bar.evaluate("b => b.value")) < 1
        assert bar.get_attribute("aria-label") == "Progress of fix 1"
        if SHOTS:
            bar.scroll_into_view_if_needed()
            page.screenshot(path=str(Path(SHOTS) / "progress.png"))
        status.locator("button.jnh-stop").click()
        card.locator(".jnh-fail").wait_for(timeout=120_000)
        assert "■ Stopped." in card.locator(".jnh-outcome-area").inner_text()
        assert card.locator("progress.jnh-progress").count() == 0
