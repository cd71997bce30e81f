"""Execute the course notebooks and write each one's page here, as HTML.

Every notebook under notebooks/ runs top to bottom in a real kernel (nbclient), with this
checkout's jax_nbhelp, then nbconvert's HTMLExporter writes ``docs/notebooks/<name>.html``.
A diagnosed cell shows its static card (the ``text/html`` of the diagnosis), since a page has
no kernel for the live one. Each page records the notebook it was built from
(``jax-nbhelp-notebook`` meta tag, a hash of the cells' sources), so the tests notice a page
that is older than its notebook. Usage, from anywhere::

    python docs/notebooks/build.py [NAME ...]    # default: every notebook
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
NOTEBOOKS = ROOT / "notebooks"
SOURCE_META = "jax-nbhelp-notebook"
# Every course notebook's first code cell, from here (build.py writes it into each notebook):
# where jax_nbhelp is missing (Colab), it installs the wheel the README's "Set up" makes,
# uploaded beside the notebook, and says so plainly when there is none.
SETUP_CELL = """\
# Set-up: where jax_nbhelp is missing (Colab), install the wheel that the README's "Set up"
# makes (upload jax_nbhelp-*.whl to the runtime's files first), then load it.
import glob, importlib, importlib.util
if importlib.util.find_spec("jax_nbhelp") is None:
    wheels = sorted(glob.glob("jax_nbhelp-*.whl") + glob.glob("/content/jax_nbhelp-*.whl"))
    if not wheels:
        raise RuntimeError("jax_nbhelp is not installed here: upload the wheel made by "
                           "`pip wheel --no-deps . -w dist` in its repository, then run "
                           "this cell again.")
    %pip install -q {wheels[-1]}
    importlib.invalidate_caches()
%load_ext jax_nbhelp"""


def with_setup_cell(path: Path) -> None:
    """Write ``SETUP_CELL`` into the notebook at ``path`` (its first code cell), in place."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    first = next(cell for cell in nb.cells if cell.cell_type == "code")
    if first.source != SETUP_CELL:
        first.source = SETUP_CELL
        nbformat.write(nb, path)


def source_hash(nb: Any) -> str:
    """A hash of the notebook's cells (kind and source), not of its outputs."""
    cells = [[cell["cell_type"], cell["source"]] for cell in nb["cells"]]
    return hashlib.sha256(json.dumps(cells).encode()).hexdigest()[:16]


def kernel_env() -> dict[str, str]:
    """The kernel's environment: this checkout's jax_nbhelp comes first on its path, so the
    notebooks' set-up cell finds it and installs nothing."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path}


def run(nb: Any, cwd: Path, *, store_widget_state: bool = True) -> Any:
    """Run the notebook ``nb`` top to bottom in a fresh kernel of this Python, in ``cwd``.

    Only cells tagged ``raises-exception`` may fail (nbclient's convention)."""
    from nbclient import NotebookClient

    client = NotebookClient(nb, timeout=600, startup_timeout=300, kernel_name="python3",
                            store_widget_state=store_widget_state,
                            resources={"metadata": {"path": str(cwd)}})
    client.execute(env=kernel_env())
    return nb


def execute(path: Path, *, store_widget_state: bool = True) -> Any:
    """The notebook at ``path``, run in its own folder (see ``run``)."""
    import nbformat

    return run(nbformat.read(path, as_version=4), path.parent,
               store_widget_state=store_widget_state)


def without_local_paths(text: str) -> str:
    """``text`` naming no directory of the machine that made it: JAX's own frames point
    into a neutral site-packages, this checkout is "jax_nbhelp", the home folder "~"."""
    import jax

    site = str(Path(jax.__file__).resolve().parent.parent)
    for local, neutral in ((site, "/usr/lib/python3/site-packages"), (str(ROOT), "jax_nbhelp"),
                           (str(Path.home()), "~")):
        text = text.replace(local, neutral)
    return text


def page(nb: Any, name: str) -> str:
    """The executed notebook as one HTML page, with the hash of its source."""
    from nbconvert import HTMLExporter

    body, _ = HTMLExporter().from_notebook_node(nb, resources={"metadata": {"name": name}})
    meta = f'<meta name="{SOURCE_META}" content="{source_hash(nb)}">'
    return without_local_paths(body.replace("<head>", f"<head>\n{meta}", 1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="notebook names (default: all)")
    args = parser.parse_args()
    paths = sorted(NOTEBOOKS.glob("*.ipynb"))
    if args.names:
        paths = [p for p in paths if p.stem in args.names or p.name in args.names]
        if not paths:
            print(f"no notebook named {' or '.join(args.names)} in {NOTEBOOKS}", file=sys.stderr)
            return 1
    for path in paths:
        with_setup_cell(path)
        # No widget state: the page shows the static card, not a live one without a kernel.
        nb = execute(path, store_widget_state=False)
        out = HERE / f"{path.stem}.html"
        out.write_text(page(nb, path.stem), encoding="utf-8")
        print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
