"""The teaching notebooks run top to bottom in a real kernel.

Only cells tagged ``raises-exception`` may fail (nbclient's own convention); every other
cell, the fixes and the checks of their numbers included, must succeed.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))

pytestmark = pytest.mark.kernel


def test_there_are_teaching_notebooks() -> None:
    assert NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=300, startup_timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if "raises-exception" in cell.metadata.get("tags", []):
            assert errors, f"expected an error in: {cell.source}"
            continue
        assert not errors, f"{cell.source}\n{errors}"
