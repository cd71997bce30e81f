"""The user's story in a real Jupyter kernel (ipykernel, driven by nbclient)."""

from __future__ import annotations

import nbformat
import pytest
from conftest import SCALED_HELPER
from nbclient import NotebookClient

from jax_nbhelp.show.render_text import MIME_TYPE

pytestmark = pytest.mark.kernel

HELPER = SCALED_HELPER


def _execute(cells: list[str]) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    client = NotebookClient(nb, timeout=300, startup_timeout=300, kernel_name="python3",
                            allow_errors=True)
    client.execute()
    return nb


def _text(outputs: list[nbformat.NotebookNode]) -> str:
    parts = []
    for output in outputs:
        if output.output_type == "stream":
            parts.append(output.text)
        elif output.output_type in ("display_data", "execute_result"):
            parts.append(output.data.get("text/plain", ""))
        elif output.output_type == "error":
            parts.append("\n".join(output.traceback))
    return "\n".join(parts)


@pytest.mark.parametrize("fix", ["1", "2"])
def test_fail_diagnose_fix_and_check_numbers_in_a_kernel(fix: str) -> None:
    nb = _execute(
        [
            "%load_ext jax_nbhelp",
            "import jax, jax.numpy as jnp\n"
            "from jax.experimental import pallas as pl\n"
            "from jax.experimental.pallas import tpu as pltpu",
            HELPER,
            "out = jax.jit(scaled)(jnp.ones((8, 128)))",
            f"%jax_nbhelp fix {fix}",
            "print('numbers:', float(out.sum()), bool((out == 3).all()))",
        ]
    )
    failing = nb.cells[3].outputs
    kinds = [o.output_type for o in failing]
    # IPython's own traceback first, then the diagnosis.
    assert kinds[0] == "error"
    assert failing[0].ename == "ValueError"
    assert "display_data" in kinds[1:]
    bundle = next(o.data for o in failing if o.output_type == "display_data")
    diagnosis = bundle[MIME_TYPE]
    assert diagnosis["code"] == "JNH101"
    assert diagnosis["location"]["cell"] == 3
    assert diagnosis["location"]["lineno"] == 5
    assert "pl.run_scoped" in diagnosis["location"]["line"]
    assert diagnosis["call_site"]["cell"] == 4
    assert "In [3], line 5" in bundle["text/plain"]
    assert "Fixed:" in _text(nb.cells[4].outputs), _text(nb.cells[4].outputs)
    assert "numbers: 3072.0 True" in _text(nb.cells[5].outputs)
