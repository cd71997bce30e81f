"""The course notebooks run top to bottom in a real kernel, and their pages show the cards.

Only cells tagged ``raises-exception`` may fail (nbclient's own convention), and each of them
must fail with an error jax_nbhelp diagnoses: the diagnosis bundle is among its outputs.
Every other cell, the fixes and the checks of their numbers included, must succeed. After
``%jax_nbhelp hints`` (classroom mode) a diagnosis comes without its fixes, and
``%jax_nbhelp fixes`` shows the last one again with them.

docs/notebooks/ holds each notebook's executed page (``python docs/notebooks/build.py``,
which runs the notebooks the way the test below does); these tests check that every page
exists, was built from its notebook as it is now, and shows the diagnosis cards. They never
rebuild a page.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from jax_nbhelp.show.render_text import MIME_TYPE

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
PAGES = ROOT / "docs" / "notebooks"

_spec = importlib.util.spec_from_file_location("notebook_pages", PAGES / "build.py")
assert _spec is not None
assert _spec.loader is not None
pages = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pages)

# What each notebook teaches: the codes its failing cells are diagnosed as, in order
# (on a CPU runtime with a JAX that has GPU interpret mode, as the suite's).
CODES = {
    "01_run_scoped_collective_axes": ["JNH101"],
    "02_interpret_modes_on_cpu": ["JNH201", "JNH202", "JNH201", "JNH103"],
    "03_tracer_errors_under_jit": ["JNH301", "JNH301", "JNH302", "JNH303", "JNH308",
                                   "JNH307", "JNH307"],
    "04_exercises": ["JNH201", "JNH304", "JNH305", "JNH303"],
    # the kernel checkup's findings (cards without an error), then a read past the end
    "05_debugging_a_kernel_on_cpu": ["JNH642", "JNH641", "JNH644", "JNH211"],
}

# Run last in every notebook the test executes: which Python the kernel is.
KERNEL_PROBE = "import sys as _sys\nprint('kernel prefix:', _sys.prefix)"


def _tags(cell: Any) -> list[str]:
    return list(cell.metadata.get("tags", []))


def _diagnoses(cell: Any) -> list[dict[str, Any]]:
    return [o.data[MIME_TYPE] for o in cell.outputs
            if o.output_type == "display_data" and MIME_TYPE in o.get("data", {})]


def _text(cell: Any) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def _magic(cell: Any, command: str) -> bool:
    """Whether the cell runs ``%jax_nbhelp <command>`` (with no argument)."""
    return any(line.split() == ["%jax_nbhelp", command] for line in cell.source.splitlines())


def test_there_are_course_notebooks() -> None:
    assert [p.stem for p in NOTEBOOKS] == sorted(CODES)


def test_committed_notebooks_have_no_outputs() -> None:
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                where = f"{path.name}: clear the outputs before committing\n{cell.source}"
                assert not cell.outputs, where
                assert cell.execution_count is None, where


@pytest.mark.kernel
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(new_code_cell(KERNEL_PROBE))
    pages.run(nb, path.parent)
    *cells, probe = nb.cells
    assert f"kernel prefix: {sys.prefix}\n" in _text(probe), (
        f"the kernel is not this Python ({sys.prefix}): {_text(probe)}")

    codes = []
    classroom = False  # after `%jax_nbhelp hints`: diagnoses keep their fixes back
    kept_back = 0
    for cell in cells:
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if _magic(cell, "hints"):
            classroom = True
        if "raises-exception" not in _tags(cell):
            assert not errors, f"{cell.source}\n{errors}"
            if cell.source.startswith("%%jax_nbhelp check"):  # findings: cards, no error
                codes += [found["code"] for found in _diagnoses(cell)]
        else:
            assert errors, f"expected an error in: {cell.source}"
            found = _diagnoses(cell)
            assert len(found) == 1, f"expected one diagnosis for: {cell.source}\n{cell.outputs}"
            plain = next(o.data["text/plain"] for o in cell.outputs
                         if o.output_type == "display_data" and MIME_TYPE in o.data)
            assert plain.startswith(f"jax_nbhelp [{found[0]['code']}]")
            codes.append(found[0]["code"])
            if classroom:
                assert found[0]["fixes"] == [], f"classroom mode showed fixes: {cell.source}"
                kept_back += found[0]["hidden_fixes"]
        if _magic(cell, "fixes"):
            # Fixes shown again, with the last diagnosis and its fixes.
            classroom = False
            shown = _diagnoses(cell)
            assert shown, f"`%jax_nbhelp fixes` showed no diagnosis: {cell.outputs}"
            assert shown[-1]["code"] == codes[-1]
            assert shown[-1]["fixes"]
        if any(line.strip().startswith("%jax_nbhelp fix ") for line in cell.source.splitlines()):
            # a fix that changes what the program computes ran, and says so: never "Fixed"
            assert ("Fixed:" in _text(cell) or "Ran without error: changes what the program "
                    "computes." in _text(cell)), f"{cell.source}\n{_text(cell)}"
    assert codes == CODES[path.stem]
    if any(_magic(cell, "hints") for cell in cells):
        assert kept_back, "classroom mode kept no fix back"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_sets_up_as_the_readme_says(path: Path) -> None:
    """Every course notebook's first code cell is the one set-up cell (docs/notebooks/
    build.py): where jax_nbhelp is missing it installs the wheel the README's "Set up"
    makes, never a package name the index does not hold."""
    nb = nbformat.read(path, as_version=4)
    first = next(cell for cell in nb.cells if cell.cell_type == "code")
    assert first.source == pages.SETUP_CELL, "rewrite it: python docs/notebooks/build.py"
    assert "pip wheel --no-deps . -w dist" in (ROOT / "README.md").read_text()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_has_its_page_with_the_cards(path: Path) -> None:
    page = PAGES / f"{path.stem}.html"
    rebuild = f"rebuild it: python docs/notebooks/build.py {path.stem}"
    assert page.exists(), f"{path.name} has no page; {rebuild}"
    html = page.read_text(encoding="utf-8")
    nb = nbformat.read(path, as_version=4)
    assert f'<meta name="{pages.SOURCE_META}" content="{pages.source_hash(nb)}">' in html, (
        f"{page.name} was built from another version of {path.name}; {rebuild}")
    # The static card of each diagnosed cell, in order, its code in its title.
    at = 0
    for code in CODES[path.stem]:
        at = html.find(f'<span class="jnh-code">jax_nbhelp {code}</span>', at) + 1
        assert at, f"{page.name} lacks the card for {code} (after the cards before it)"
    assert html.count('<div class="jnh-card">') >= len(CODES[path.stem])
    # Every magic the notebook runs was one jax_nbhelp knew when the page was built.
    assert "jax_nbhelp: unknown command" not in html, f"{page.name} is stale; {rebuild}"
    # The page is static: no widget state, so no live card without a kernel behind it.
    assert "application/vnd.jupyter.widget-state+json" not in html
