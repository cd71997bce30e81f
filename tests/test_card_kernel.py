"""The card in a real Jupyter kernel: the failing cell's saved outputs hold the live widget
and, before it, a static copy that every frontend (and nbconvert) can show without a kernel."""

from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from jax_nbhelp.show.card.live import WIDGET_VIEW_MIME
from jax_nbhelp.show.render_text import MIME_TYPE

pytestmark = pytest.mark.kernel

ROOT = Path(__file__).resolve().parent.parent

CELLS = [
    "%load_ext jax_nbhelp",
    "import jax, jax.numpy as jnp\n"
    "from jax.experimental import pallas as pl\n"
    "from jax.experimental.pallas import tpu as pltpu",
    "def scaled(x):\n"
    "    def body(ref):\n"
    "        ref[...] = x * 2\n"
    "        return ref[...] + 1\n"
    '    return pl.run_scoped(body, pltpu.VMEM(x.shape, x.dtype), collective_axes="core")',
    "out = jax.jit(scaled)(jnp.ones((8, 128)))",
]


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    # The kernel imports this checkout, whatever copy of jax_nbhelp is installed.
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    client = NotebookClient(nb, timeout=300, startup_timeout=300, kernel_name="python3",
                            allow_errors=True,
                            resources={"metadata": {"path": str(ROOT)}})
    os.environ["PYTHONPATH"], saved = path, os.environ.get("PYTHONPATH")
    try:
        client.execute()
    finally:
        if saved is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = saved
    return nb


def test_failing_cell_outputs_hold_the_widget_and_its_html_fallback(
        executed: nbformat.NotebookNode) -> None:
    outputs = executed.cells[3].outputs
    assert [o.output_type for o in outputs] == ["error", "display_data", "display_data"]
    assert outputs[0].ename == "ValueError"
    static, live = outputs[1], outputs[2]
    # The static copy: the same explanation as text, HTML and data.
    assert set(static.data) == {"text/plain", "text/html", MIME_TYPE}
    assert static.data[MIME_TYPE]["code"] == "JNH101"
    assert "jax_nbhelp [JNH101]" in static.data["text/plain"]
    assert "In [3], line 5" in static.data["text/html"]
    assert "Remove collective_axes" in static.data["text/html"]
    match = re.search(r'class="jnh-static-([0-9a-f]+)"', static.data["text/html"])
    assert match is not None
    card_id = match.group(1)
    # The live card, right after it, whose root widget carries the matching class.
    view = live.data[WIDGET_VIEW_MIME]
    assert set(live.data) == {WIDGET_VIEW_MIME}  # no empty text beside the static copy
    state = executed.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    root = state[view["model_id"]]
    assert root["model_name"] == "AnyModel"  # the TypeScript card, as an anywidget
    assert f"jnh-live-{card_id}" in root["state"]["_dom_classes"]
    diagnosis = root["state"]["diagnosis"]
    assert diagnosis["card_id"] == card_id
    assert [fix["label"] for fix in diagnosis["fixes"]] == ["Run as one program",
                                                            "Remove collective_axes",
                                                            "Check this kernel"]
    assert diagnosis["recommended"] == 2


def test_nbconvert_html_without_widget_state_shows_the_explanation(
        executed: nbformat.NotebookNode) -> None:
    from nbconvert import HTMLExporter

    saved = nbformat.from_dict(executed)
    # JupyterLab does not save widget state by default: the widget model is then missing.
    saved.metadata.pop("widgets", None)
    body, _ = HTMLExporter().from_notebook_node(saved)
    assert "Collective run_scoped compiled outside a Pallas kernel" in body
    assert "jnh-static-" in body
    assert "Error displaying widget" not in body
