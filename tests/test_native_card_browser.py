"""The native card and "Apply to cell" in a real browser: JupyterLab 4 and Notebook 7 on
127.0.0.1, Debian's Chromium driven by Playwright.

The notebook holds the flagship story (helper in one cell, a counter and the call in the
next). Run all; the card shows once, in view, under a folded traceback; "Apply to cell"
writes exactly the previewed source into the helper's cell, the kernel gets the right
numbers, one undo restores the cell; saved, the notebook runs top to bottom in a fresh
kernel. After a kernel restart, or opened again from disk, the card says it is stale and
its buttons are disabled.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
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

HELPER_CELL = 3
FAILING_CELL = 4
CELLS = [
    *lab_driver.FLAGSHIP_CELLS[:2],
    "step = 0",
    lab_driver.FLAGSHIP_CELLS[2],
    "step += 1\nout = jax.jit(scaled)(jnp.ones((8, 128)))\nfloat(out.sum()) * step",
]
PANEL = lab_driver.PANEL


def _bundle(page: Any) -> dict[str, Any]:
    bundle: dict[str, Any] = page.evaluate(
        f"""i => {PANEL}.content.widgets[i].model.outputs.toJSON()
               .map(o => o.data && o.data['application/vnd.jax-nbhelp.diagnosis+json'])
               .find(d => d)""", FAILING_CELL)
    return bundle


@pytest.mark.parametrize("app", ["jupyterlab", "notebook"])
def test_apply_to_cell_writes_the_fix_into_the_notebook(tmp_path: Path, app: str) -> None:
    lab_driver.write_notebook(tmp_path / "story.ipynb", CELLS)
    with lab_driver.jupyterlab(tmp_path, app=app) as url, lab_driver.chromium() as page:
        lab_driver.open_in(page, url, app, "story.ipynb")
        card = lab_driver.live_card(page)
        fix = card.locator("button.jnh-button", has_text="Remove collective_axes")

        # Exactly one card: not the widget, not the static copy as well.
        assert page.locator(".jnh-native").count() == 1
        assert page.locator("[class*=jnh-static-]").count() == 0
        hidden_widgets = page.evaluate(
            """() => Array.from(document.querySelectorAll('.jp-OutputArea-child'))
                   .filter(c => c.querySelector('.jupyter-widgets.jnh-card'))
                   .map(c => getComputedStyle(c).display)""")
        assert all(display == "none" for display in hidden_widgets)
        # The card is in view: the traceback above it is folded to its last lines.
        assert page.locator(".jp-OutputArea-child.jnh-folded").count() == 1
        card.scroll_into_view_if_needed()
        folded_height = page.evaluate(
            "() => document.querySelector('.jnh-folded pre').getBoundingClientRect().height")
        assert folded_height < 200

        bundle = _bundle(page)
        remove = next(f for f in bundle["fixes"] if f["label"] == "Remove collective_axes")
        (edit,) = remove["edits"]
        assert edit["cell"] == HELPER_CELL + 1  # In [4]: %load_ext, imports, step, helper
        original = lab_driver.cell_source(page, HELPER_CELL)
        assert original == edit["original"]

        # The cause's place links to it: the helper's cell becomes active, its line selected.
        link = card.locator(".jnh-cause button.jnh-locate")
        assert link.inner_text() == bundle["location"]["label"]
        link.click()
        page.wait_for_function(f"() => {PANEL}.content.activeCellIndex === {HELPER_CELL}",
                               timeout=10_000)
        selected = page.evaluate(f"() => {PANEL}.content.activeCell.editor.getSelection()")
        assert selected["start"]["line"] == bundle["location"]["lineno"] - 1, selected
        card.scroll_into_view_if_needed()

        fix.click()
        card.locator(".jnh-ok").wait_for(timeout=180_000)
        outcome = card.locator(".jnh-outcome-area").inner_text()
        assert "✓ Fixed." in outcome
        assert "Out: 3072.0" in outcome  # step was 1: the counter did not run twice
        assert f"Written into {edit['label']}" in outcome
        assert lab_driver.cell_source(page, HELPER_CELL) == edit["source"]
        assert "collective_axes" not in lab_driver.cell_source(page, HELPER_CELL)

        # One undo in that cell restores what it held.
        page.locator(".jp-Notebook .jp-Cell").nth(HELPER_CELL).locator(".cm-content").click()
        page.keyboard.press("Control+z")
        page.wait_for_function(
            f"() => !{PANEL}.content.widgets[{HELPER_CELL}].model.sharedModel.getSource()"
            ".includes('collective_axes') === false", timeout=10_000)
        assert lab_driver.cell_source(page, HELPER_CELL) == original
        page.keyboard.press("Control+Shift+z")
        page.wait_for_function(
            f"() => !{PANEL}.content.widgets[{HELPER_CELL}].model.sharedModel.getSource()"
            ".includes('collective_axes')", timeout=10_000)
        assert lab_driver.cell_source(page, HELPER_CELL) == edit["source"]

        lab_driver.save(page)
        page.wait_for_function(f"() => !{PANEL}.context.model.dirty", timeout=30_000)

        # A kernel restart makes the diagnosis stale: the buttons say so and do nothing.
        page.evaluate(f"() => {PANEL}.sessionContext.session.kernel.restart()")
        page.wait_for_function(
            "() => document.querySelector('.jnh-native .jnh-status').textContent"
            ".includes('stale')", timeout=60_000)
        assert all(b.is_disabled() for b in card.locator("button.jnh-button").all())

        # Opened again from disk, the card still explains; its buttons say why they wait.
        lab_driver.open_in(page, url, app, "story.ipynb")
        card = page.locator(".jnh-native").first
        card.wait_for(timeout=60_000)
        assert "Collective run_scoped compiled outside a Pallas kernel" in card.inner_text()
        page.wait_for_function(
            "() => document.querySelector('.jnh-native .jnh-status').textContent"
            ".includes('stale')", timeout=60_000)
        assert all(b.is_disabled() for b in card.locator("button.jnh-button").all())

    # The saved notebook runs top to bottom in a fresh kernel, with the right numbers.
    saved = nbformat.read(str(tmp_path / "story.ipynb"), as_version=4)
    NotebookClient(saved, timeout=300, startup_timeout=300, kernel_name="python3").execute()
    last = saved.cells[FAILING_CELL].outputs
    assert [o["data"]["text/plain"] for o in last if o["output_type"] == "execute_result"] \
        == ["3072.0"]


def test_commands_show_and_apply_the_recommended_fix(tmp_path: Path) -> None:
    lab_driver.write_notebook(tmp_path / "commands.ipynb", CELLS)
    with lab_driver.jupyterlab(tmp_path) as url, lab_driver.chromium() as page:
        lab_driver.open_notebook(page, url, "commands.ipynb")
        card = lab_driver.live_card(page)
        page.evaluate(f"() => {{ {PANEL}.content.activeCellIndex = {FAILING_CELL}; }}")
        labels = page.evaluate(
            """() => ['jax-nbhelp:apply-recommended-fix', 'jax-nbhelp:show-diagnosis',
                      'jax-nbhelp:apply-first-fix']
                   .map(id => [window.jupyterapp.commands.label(id),
                               window.jupyterapp.commands.isEnabled(id)])""")
        # the old id stays, for key bindings made before, and does the same
        assert labels == [["Apply the recommended fix", True], ["Show diagnosis", True],
                          ["Apply the recommended fix", True]]
        # In the cell's context menu too.
        page.locator(".jp-Notebook .jp-Cell").nth(FAILING_CELL).locator(
            ".jp-InputArea-prompt").click(button="right")
        menu = page.locator(".lm-Menu")
        menu.wait_for(timeout=10_000)
        assert "Apply the recommended fix" in menu.inner_text()
        assert "Show diagnosis" in menu.inner_text()
        page.keyboard.press("Escape")
        primary = card.locator(".jnh-primary button").inner_text()
        page.evaluate(
            "() => window.jupyterapp.commands.execute('jax-nbhelp:apply-recommended-fix')")
        card.locator(".jnh-ok").wait_for(timeout=180_000)
        # The primary button's fix ran: Remove collective_axes, written into the helper's cell.
        assert primary == "Remove collective_axes"
        assert "Remove collective_axes" in card.locator(".jnh-outcome-area").inner_text()
        assert "collective_axes" not in lab_driver.cell_source(page, HELPER_CELL)


def test_a_helper_in_a_file_opens_in_the_editor_at_its_line(tmp_path: Path) -> None:
    """A location in a .py file under the server root links to the file, opened at the line."""
    helper = lab_driver.FLAGSHIP_CELLS[2]
    (tmp_path / "kernel_helpers.py").write_text(
        "import jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n"
        "from jax.experimental.pallas import tpu as pltpu\n\n\n" + helper + "\n")
    cells = [*lab_driver.FLAGSHIP_CELLS[:2], "from kernel_helpers import scaled",
             lab_driver.FLAGSHIP_CELLS[3]]
    lab_driver.write_notebook(tmp_path / "module.ipynb", cells)
    with lab_driver.jupyterlab(tmp_path) as url, lab_driver.chromium(1400, 900) as page:
        lab_driver.open_notebook(page, url, "module.ipynb")
        card = lab_driver.live_card(page)
        link = card.locator("button.jnh-locate", has_text="kernel_helpers.py").first
        assert link.inner_text().endswith("kernel_helpers.py, line 10"), link.inner_text()
        link.click()
        page.wait_for_function(
            "() => { const w = window.jupyterapp.shell.currentWidget; return w && "
            "w.context && w.context.path === 'kernel_helpers.py' && w.content.editor; }",
            timeout=60_000)
        # The editor becomes the current widget as soon as it opens; the cursor moves once
        # the file's text has loaded, a moment later on a loaded machine.
        cursor = "window.jupyterapp.shell.currentWidget.content.editor.getCursorPosition()"
        try:
            page.wait_for_function(f"() => {cursor}.line === 9", timeout=60_000)
        finally:
            print("cursor:", page.evaluate(f"() => {cursor}"))


@contextmanager
def _first_card(tmp_path: Path, cells: list[str]) -> Iterator[Any]:
    """The first card of ``cells`` run all in JupyterLab, once it shows."""
    lab_driver.write_notebook(tmp_path / "cards.ipynb", cells)
    with lab_driver.jupyterlab(tmp_path) as url, lab_driver.chromium() as page:
        lab_driver.open_notebook(page, url, "cards.ipynb")
        lab_driver.run_all(page)
        card = page.locator(".jnh-native").first
        card.wait_for(timeout=180_000)
        yield card


def test_the_general_view_is_one_line_and_claims_no_cause(tmp_path: Path) -> None:
    """An error of which nothing can be read (JAX's C++ at the call of the notebook's own
    jitted function): the general view."""
    cells = ["%load_ext jax_nbhelp", "import jax, jax.numpy as jnp",
             "class Setting:\n    def __hash__(self):\n        return 0\n\n"
             "    def __eq__(self, other):\n        raise TypeError('not comparable')\n\n"
             "f = jax.jit(lambda x, s: x, static_argnums=1)\nf(1.0, Setting())",
             "y = f(1.0, Setting())"]
    with _first_card(tmp_path, cells) as card:
        assert card.get_attribute("data-jnh-code") == "JNH000"
        assert card.locator(".jnh-cause").inner_text().startswith("JAX raised this ValueError;")
        assert "General view: no cause claimed, no fix." in card.inner_text()
        assert "No mechanical fix is correct" not in card.inner_text()
        assert card.locator("button.jnh-button").count() == 0


def test_the_explained_card_names_the_function_and_its_check(tmp_path: Path) -> None:
    """An error raised inside a JAX function the line calls: the card says it is the
    function's, with what it requires of the argument, and shows JAX's check in its
    details; no fix, and no claim about the user's line."""
    cells = ["%load_ext jax_nbhelp", "import jax, jax.numpy as jnp",
             "m = jnp.arange(6.0).reshape(2, 3)", "L = jnp.linalg.cholesky(m)"]
    with _first_card(tmp_path, cells) as card:
        assert card.get_attribute("data-jnh-code") == "JNH001"
        assert card.locator(".jnh-title").first.inner_text().startswith(
            "jnp.linalg.cholesky failed inside")
        cause = card.locator(".jnh-cause").inner_text()
        assert cause.startswith("The error came from inside jnp.linalg.cholesky")
        assert "Must have shape (..., N, N)" in cause
        assert "No fix offered" in card.inner_text()
        assert card.locator("button.jnh-button").count() == 0
        card.locator("summary").first.click()
        assert "JAX's check:" in card.locator(".jnh-more").inner_text()


OLD_KERNEL = ("def add_one_kernel(x_ref, o_ref):\n"
              "    o_ref[...] = pl.load(x_ref, (slice(None),)) + 1\n\n"
              "add_one = pl.pallas_call(add_one_kernel,\n"
              "                         out_shape=jax.ShapeDtypeStruct((8,), jnp.float32))")


def test_a_fix_for_the_error_a_fix_raised_keeps_the_first(tmp_path: Path) -> None:
    """A notebook for an older JAX: the first fix's run fails on the CPU, its card opens
    inside the first; one click there runs both fixes, writes both into the kernel's cell,
    and the saved notebook runs clean in a fresh kernel."""
    from jax.experimental import pallas as pl

    if hasattr(pl, "load"):
        pytest.skip("this JAX still has pl.load")
    cells = [*lab_driver.FLAGSHIP_CELLS[:2], OLD_KERNEL,
             "out = add_one(jnp.zeros(8))\nout.tolist()"]
    lab_driver.write_notebook(tmp_path / "chain.ipynb", cells)
    with lab_driver.jupyterlab(tmp_path) as url, lab_driver.chromium() as page:
        lab_driver.open_notebook(page, url, "chain.ipynb")
        card = lab_driver.live_card(page)
        assert card.get_attribute("data-jnh-code") == "JNH210"
        card.locator("button.jnh-button", has_text="Index the refs").first.click()
        second = card.locator(".jnh-nested button.jnh-button", has_text="Pass interpret=True")
        second.wait_for(timeout=180_000)
        page.wait_for_function(
            """() => Array.from(document.querySelectorAll('.jnh-nested button.jnh-button'))
                   .some(b => b.textContent.includes('Pass interpret=True') && !b.disabled)""",
            timeout=60_000)
        assert card.locator(".jnh-nested [data-jnh-code]").first.get_attribute(
            "data-jnh-code") == "JNH201"
        first_outcome = card.locator(".jnh-outcome-area").first.inner_text()
        assert "Its fixes start from your code as “Index the refs" in first_outcome
        second.click()
        card.locator(".jnh-nested .jnh-ok").wait_for(timeout=180_000)
        outcome = card.locator(".jnh-nested .jnh-outcome-area").inner_text()
        assert "✓ Fixed." in outcome
        assert "[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]" in outcome
        written = lab_driver.cell_source(page, 2)
        assert "pl.load" not in written
        assert "x_ref[slice(None)]" in written
        assert "interpret=True" in written
        lab_driver.save(page)
        page.wait_for_function(f"() => !{PANEL}.context.model.dirty", timeout=30_000)

    saved = nbformat.read(str(tmp_path / "chain.ipynb"), as_version=4)
    NotebookClient(saved, timeout=300, startup_timeout=300, kernel_name="python3").execute()
    results = [o["data"]["text/plain"] for o in saved.cells[3].outputs
               if o["output_type"] == "execute_result"]
    assert results == [str([1.0] * 8)]
