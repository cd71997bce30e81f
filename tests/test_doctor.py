"""``jax_nbhelp doctor``, as a user runs it: the installed command on real notebooks, each in
a fresh kernel; then the repaired notebook run clean by nbclient in another fresh kernel."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from conftest import Notebook
from test_notebooks import CODES as EXPECTED

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
TUTORIALS = ROOT / "tests" / "tutorials"


def doctor(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jax_nbhelp", "doctor", *map(str, args)],
                          cwd=cwd, capture_output=True, text=True, timeout=900, check=False)


def untagged(name: str, folder: Path) -> Path:
    """A course notebook without its raises-exception tags: every failure is a real one."""
    notebook = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    for cell in notebook.cells:
        cell.metadata.pop("tags", None)
    path = folder / f"{name}.ipynb"
    nbformat.write(notebook, path)
    return path


def test_a_course_notebook_reports_its_tagged_failures(tmp_path: Path) -> None:
    name = "02_interpret_modes_on_cpu"
    proc = doctor(NOTEBOOKS / f"{name}.ipynb", "--json", "--quiet", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    (report,) = json.loads(proc.stdout)["notebooks"]
    assert [failure["code"] for failure in report["failures"]] == EXPECTED[name]
    assert all(failure["expected"] for failure in report["failures"])
    assert report["run"] == report["cells"]


def test_fix_and_write_give_a_notebook_that_runs_clean(tmp_path: Path) -> None:
    from nbclient import NotebookClient

    source = untagged("01_run_scoped_collective_axes", tmp_path)
    before = source.read_bytes()
    out = tmp_path / "repaired.ipynb"
    proc = doctor(source, "--fix", "--write", out, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[JNH101]" in proc.stderr  # the diagnosis, as it came
    assert "fixed by" in proc.stdout  # then the report
    assert source.read_bytes() == before  # the input is never written without --in-place

    original = nbformat.read(source, as_version=4)
    repaired = nbformat.read(out, as_version=4)
    nbformat.validate(repaired)
    changed = [k for k, (a, b) in enumerate(zip(original.cells, repaired.cells, strict=True))
               if a.source != b.source]
    assert len(changed) == 1
    cell = repaired.cells[changed[0]]
    assert "collective_axes" not in cell.source
    assert cell.metadata["jax_nbhelp"]["code"] == "JNH101"
    assert cell.metadata["jax_nbhelp"]["original"] == original.cells[changed[0]].source
    only_documented_changes(original, repaired, rewritten=set(changed))

    NotebookClient(repaired, timeout=600, resources={"metadata": {"path": str(tmp_path)}}
                   ).execute()
    errors = [output for cell in repaired.cells if cell.cell_type == "code"
              for output in cell.outputs if output.output_type == "error"]
    assert errors == []


def only_documented_changes(original: Any, repaired: Any, *, rewritten: set[int],
                            added: int | None = None) -> None:
    """The repaired notebook differs from the original only as the README says: the sources
    of rewritten cells, a first cell for a mode kept on, outputs and execution counts, and
    jax_nbhelp's record in the metadata of the cells it touched. Ids, types, tags, other
    metadata and the notebook's own metadata stay."""
    assert repaired.metadata == original.metadata
    assert (repaired.nbformat, repaired.nbformat_minor) == (original.nbformat,
                                                            original.nbformat_minor)
    cells = list(repaired.cells)
    if added is not None:
        new = cells.pop(added)
        assert new.cell_type == "code"
        assert new.source.splitlines()[0] == "%load_ext jax_nbhelp"
        assert set(new.metadata) == {"jax_nbhelp"}
        assert added == next(i for i, c in enumerate(original.cells) if c.cell_type == "code")
    assert len(cells) == len(original.cells)
    for index, (a, b) in enumerate(zip(original.cells, cells, strict=True)):
        assert (b.get("id"), b.cell_type) == (a.get("id"), a.cell_type)
        assert (b.source != a.source) == (index in rewritten), index
        extra = {key: value for key, value in b.metadata.items() if key != "jax_nbhelp"}
        assert extra == dict(a.metadata)
        if a.cell_type != "code":
            assert b == a


def test_a_mode_kept_on_becomes_the_first_code_cell(tmp_path: Path) -> None:
    """A kernel in a module cannot be rewritten: the recommended fix keeps an interpret mode
    on, and the repaired notebook turns it on in its first code cell, changing nothing else."""
    from nbclient import NotebookClient

    (tmp_path / "kernels.py").write_text(
        "import jax\nfrom jax.experimental import pallas as pl\n\n\n"
        "def _add_one(x_ref, o_ref):\n    o_ref[...] = x_ref[...] + 1\n\n\n"
        "def add_one(x):\n"
        "    shape = jax.ShapeDtypeStruct(x.shape, x.dtype)\n"
        "    return pl.pallas_call(_add_one, out_shape=shape)(x)\n")
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# A kernel from a module"),
        nbformat.v4.new_code_cell("import jax.numpy as jnp\nfrom kernels import add_one"),
        nbformat.v4.new_code_cell("out = add_one(jnp.zeros((8, 128)))\nfloat(out.sum())",
                                  metadata={"tags": ["keep-me"]}),
    ], metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                "language": "python"}, "course": {"week": 3}})
    source = tmp_path / "module.ipynb"
    nbformat.write(notebook, source)
    out = tmp_path / "repaired.ipynb"
    proc = doctor(source, "--fix", "--write", out, "--json", "--quiet", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    (report,) = json.loads(proc.stdout)["notebooks"]
    assert (report["fixed"], report["added"], report["changed"]) == (1, [2], [])
    assert "interpret" in report["setup"]

    original = nbformat.read(source, as_version=4)
    repaired = nbformat.read(out, as_version=4)
    nbformat.validate(repaired)
    only_documented_changes(original, repaired, rewritten=set(), added=1)
    NotebookClient(repaired, timeout=600, resources={"metadata": {"path": str(tmp_path)}}
                   ).execute()
    assert float(repaired.cells[-1].outputs[0]["data"]["text/plain"]) == 8 * 128


def test_without_fix_it_stops_at_the_first_error(tmp_path: Path) -> None:
    source = untagged("01_run_scoped_collective_axes", tmp_path)
    proc = doctor(source, "--json", "--quiet", cwd=tmp_path)
    assert proc.returncode == 1
    (report,) = json.loads(proc.stdout)["notebooks"]
    assert report["still_failing"] == 1
    assert report["diagnosed"] == 1
    assert report["run"] < report["cells"]
    assert "not run" in report["stopped"]


def test_in_place_keeps_a_backup(tmp_path: Path) -> None:
    source = untagged("01_run_scoped_collective_axes", tmp_path)
    before = source.read_bytes()
    proc = doctor(source, "--fix", "--in-place", "--quiet", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / (source.name + ".bak")).read_bytes() == before
    assert source.read_bytes() != before


def test_a_tutorial_is_repaired(tmp_path: Path) -> None:
    proc = doctor(TUTORIALS / "01_blocked_matmul.ipynb", "--fix", "--json", "--quiet",
                  cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    (report,) = json.loads(proc.stdout)["notebooks"]
    assert report["fixed"] == report["failed"] >= 1


def test_a_cell_past_its_timeout_is_interrupted_and_reported(tmp_path: Path) -> None:
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import time\nwhile True:\n    time.sleep(0.1)"),
        nbformat.v4.new_code_cell("x = 1"),
    ])
    path = tmp_path / "slow.ipynb"
    nbformat.write(notebook, path)
    proc = doctor(path, "--timeout", "5", "--keep-going", "--json", "--quiet", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    (report,) = json.loads(proc.stdout)["notebooks"]
    assert report["failures"][0]["timed_out"]
    assert report["run"] == 2


@pytest.mark.parametrize(("make", "message"), [
    (lambda folder: folder / "missing.ipynb", "cannot read it"),
    (lambda folder: _text(folder / "notes.ipynb", "just some text"), "not a notebook"),
    (lambda folder: _text(folder / "bin.ipynb", b"\xff\xfe\x00"), "not a notebook"),
])
def test_bad_input_exits_2_with_one_line(tmp_path: Path, make, message: str) -> None:
    path = make(tmp_path)
    out = tmp_path / "out.ipynb"
    proc = doctor(path, "--write", out, cwd=tmp_path)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_no_such_kernel_exits_2(tmp_path: Path) -> None:
    proc = doctor(NOTEBOOKS / "01_run_scoped_collective_axes.ipynb", "--kernel",
                  "no-such-kernel", "--quiet", cwd=tmp_path)
    assert proc.returncode == 2
    assert "no Jupyter kernel named 'no-such-kernel'" in proc.stderr


def test_a_kernel_that_dies_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_code_cell("import os\nos._exit(1)"),
        nbformat.v4.new_code_cell("y = 2"),
    ])
    path = tmp_path / "dies.ipynb"
    nbformat.write(notebook, path)
    out = tmp_path / "out.ipynb"
    proc = doctor(path, "--fix", "--write", out, "--quiet", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "the kernel died" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not out.exists()


def _text(path: Path, content: str | bytes) -> Path:
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


def test_the_set_up_line_of_a_kept_mode_turns_it_on_and_off(loaded: Notebook) -> None:
    """What a repaired notebook's first cell says for a mode a fix kept on."""
    on = loaded.run("%jax_nbhelp interpret tpu")
    assert "is on for this kernel" in on.stdout
    from jax_nbhelp.jaxapi import interpret_modes

    assert interpret_modes.session_mode() == "tpu"
    off = loaded.run("%jax_nbhelp interpret off")
    assert "is off" in off.stdout
    assert interpret_modes.session_mode() is None


def test_a_long_fix_shows_its_progress_on_a_terminal(tmp_path: Path) -> None:
    """The doctor hears a running fix's reports (the kernel's PROGRESS_MIME): a terminal
    gets them in its progress line, under a bar of the cells done; a log does without."""
    import io

    from jax_nbhelp.catalog.pallas.pallas_kernel_compiled_for_cpu import BIG_MATMUL
    from jax_nbhelp.doctor.checkup import Checkup, Options
    from jax_nbhelp.doctor.cli import _Progress

    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(BIG_MATMUL),
        nbformat.v4.new_code_cell("import jax_nbhelp.fix.rerun as r\n"
                                  "r.PROGRESS_AFTER = r.PROGRESS_EVERY = 0.1"),
        nbformat.v4.new_code_cell("x = jnp.ones((1024, 1024))\nout = matmul(x, x)"),
    ])
    path = tmp_path / "long.ipynb"
    nbformat.write(notebook, path)

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal, log = Terminal(), io.StringIO()
    shown, logged = _Progress(terminal, quiet=False), _Progress(log, quiet=False)

    def both(text: str, done: float | None, transient: bool) -> None:
        shown.step(text, done, transient)
        logged.step(text, done, transient)

    report = Checkup(path, notebook, Options(kernel="python3", fix=True, timeout=600.0,
                                             keep_going=False), both, shown.say).run()
    assert report.ok, report
    reports = [line for line in terminal.getvalue().split("\r\x1b[K") if ": fix " in line]
    assert reports, terminal.getvalue()
    assert reports[-1].startswith("[#############.......] [3/3] cell 3: fix "), reports[-1]
    assert ": fix " not in log.getvalue()
    assert log.getvalue().splitlines() == ["[1/3] cell 1", "[2/3] cell 2", "[3/3] cell 3"]


def test_its_report_numbers_cells_as_the_card_does_and_suggests_fix(tmp_path: Path) -> None:
    """A failing cell is named by its position and its execution count (the card's places
    say "In [3]"), the card's commands are the doctor's, and a safe fix is pointed at."""
    source = untagged("01_run_scoped_collective_axes", tmp_path)
    proc = doctor(source, cwd=tmp_path)
    assert proc.returncode == 1
    notebook = nbformat.read(source, as_version=4)
    failing = next(i for i, cell in enumerate(notebook.cells, 1)
                   if "jax.jit(scaled)" in cell.source)
    assert f"cell {failing} (In [" in proc.stderr, proc.stderr
    assert "--fix --write OUT.ipynb` applies it" in proc.stderr
    assert "--fix applies the recommended one" in proc.stderr
    assert "%jax_nbhelp fix N" not in proc.stderr
    assert f"- cell {failing} (In [" in proc.stdout


def test_alone_it_prints_its_usage_and_exits_2(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "jax_nbhelp"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 2
    assert "usage: jax_nbhelp" in proc.stderr
    assert "doctor" in proc.stderr
    assert "%load_ext jax_nbhelp" in proc.stderr
