"""Tutorial-shaped notebooks, written for a TPU, run on a CPU runtime the way a learner runs
them: cell by cell in a real kernel, and when a cell fails, the diagnosis under it is read,
its recommended fix applied with ``%jax_nbhelp fix N`` in a new cell, and the notebook goes
on with its next cell. Each notebook ends with cells that check its numbers against plain
``jnp``; the number of fixes a notebook needs is part of what is tested (the goal: after one
fix, the rest of a quickstart-style notebook runs with no further click).

The notebooks (tests/tutorials/, committed without outputs):

- 01_blocked_matmul: a 3-D grid matmul with a VMEM accumulator in scratch_shapes;
- 02_pipelined_reduction: sums whose output block is revisited along an "arbitrary" axis;
- 03_core_map: ``pl.core_map`` over a TensorCore mesh inside ``pl.run_state``, then
  ``pl.kernel`` over the same mesh;
- 04_distributed: a two-device mesh, ``jax.device_put`` with a NamedSharding and
  ``jax.shard_map`` around a Pallas kernel. A CPU runtime has one device: the notebook fails
  (JNH207, no fix in this kernel), and runs again in a fresh kernel whose first cell is the
  one the diagnosis gives.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
import pytest
from conftest import validate_bundle
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

from jax_nbhelp.show.render_text import MIME_TYPE

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent / "tutorials"
NOTEBOOKS = sorted(HERE.glob("*.ipynb"))

FROM_NOW_ON = "Interpret mode from now on"

# What a learner meets in each notebook on a one-device CPU runtime, in order: the code of
# each diagnosis and the label of the fix applied for it.
PLANS: dict[str, list[tuple[str, str]]] = {
    # One click: every later kernel (the rectangular and bfloat16 products) runs interpreted.
    "01_blocked_matmul": [("JNH201", FROM_NOW_ON)],
    # One click for both reductions.
    "02_pipelined_reduction": [("JNH201", FROM_NOW_ON)],
    # The mesh needs num_cores on a CPU, then one click for core_map and pl.kernel.
    "03_core_map": [("JNH202", "Pass num_cores=1"), ("JNH201", FROM_NOW_ON)],
    # Second run (the first cell from JNH207's note on top): the kernel inside shard_map.
    "04_distributed": [("JNH201", FROM_NOW_ON)],
}

# Run last in every session: which Python the kernel is, and its device count.
PROBE = ("import sys as _sys, jax as _jax, jax_nbhelp as _jnh\n"
         "print('kernel prefix:', _sys.prefix, 'devices:', _jax.device_count())\n"
         "print('jax_nbhelp from:', _jnh.__file__)")


def kernel_env() -> dict[str, str]:
    """This checkout's jax_nbhelp first on the kernel's path (as docs/notebooks/build.py does);
    no inherited setting that changes JAX's device count or platform."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("XLA_FLAGS", "JAX_PLATFORMS", "JAX_NUM_CPU_DEVICES")}
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return env


def _diagnoses(cell: Any) -> list[dict[str, Any]]:
    return [o.data[MIME_TYPE] for o in cell.outputs
            if o.output_type == "display_data" and MIME_TYPE in o.get("data", {})]


def _errors(cell: Any) -> list[Any]:
    return [o for o in cell.outputs if o.output_type == "error"]


def _text(cell: Any) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def _show(cell: Any) -> str:
    """The cell and what it printed, for assertion messages."""
    parts = [f"--- cell:\n{cell.source}"]
    for o in cell.outputs:
        if o.output_type == "stream":
            parts.append(o.text)
        elif o.output_type == "error":
            parts.append(f"{o.ename}: {o.evalue}")
        elif "text/plain" in o.get("data", {}):
            parts.append(o.data["text/plain"])
    return "\n".join(parts)


@dataclass
class Session:
    """Every cell run in one kernel, in order (the notebook's cells and the fix cells)."""

    cells: list[Any] = field(default_factory=list)
    diagnoses: list[dict[str, Any]] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)  # the labels of the fixes applied
    stopped: Any = None  # the cell where the run stopped on a diagnosis with no fix
    interpret: str = ""  # what `%jax_nbhelp interpret` said at the end

    def text(self) -> str:
        return "\n".join(_text(cell) for cell in self.cells)


def drive(cells: list[Any], plan: list[tuple[str, str]], *,
          stop_on: tuple[str, ...] = ()) -> Session:
    """Run ``cells`` one by one in a fresh kernel, like a user: when a cell fails, its
    diagnosis must be the next one in ``plan``; the fix with the planned label is applied
    with ``%jax_nbhelp fix N`` as a new cell, must say "Fixed", and the run goes on with the
    next cell. A diagnosis whose code is in ``stop_on`` ends the run there."""
    session = Session()
    nb = new_notebook()
    client = NotebookClient(nb, timeout=600, startup_timeout=300, kernel_name="python3",
                            allow_errors=True, resources={"metadata": {"path": str(HERE)}})

    def run(source: str) -> Any:
        nb.cells.append(new_code_cell(source))
        client.execute_cell(nb.cells[-1], len(nb.cells) - 1)
        session.cells.append(nb.cells[-1])
        return nb.cells[-1]

    pending = list(plan)
    with client.setup_kernel(env=kernel_env()):
        for source in cells:
            cell = run(source)
            if not _errors(cell):
                continue
            found = _diagnoses(cell)
            assert len(found) == 1, f"expected one diagnosis\n{_show(cell)}"
            (bundle,) = found
            validate_bundle(bundle)
            session.diagnoses.append(bundle)
            if bundle["code"] in stop_on:
                session.stopped = cell
                break
            assert pending, f"unexpected failure ({bundle['code']})\n{_show(cell)}"
            code, label = pending.pop(0)
            assert bundle["code"] == code, f"expected {code}\n{_show(cell)}"
            labels = [fix["label"] for fix in bundle["fixes"]]
            assert label in labels, f"no fix {label!r} among {labels}\n{_show(cell)}"
            fixed = run(f"%jax_nbhelp fix {labels.index(label) + 1}")
            assert not _errors(fixed), _show(fixed)
            chosen = bundle["fixes"][labels.index(label)]
            # a fix that changes what the program computes ran, and never says "Fixed"
            said = (f"Fixed: '{label}'" if chosen["safe"] else
                    f"Ran without error: changes what the program computes. “{label}”")
            assert said in _text(fixed), _show(fixed)
            session.fixes.append(label)
        session.interpret = _text(run("%jax_nbhelp interpret"))
        probe = run(PROBE)
    assert f"kernel prefix: {sys.prefix} " in _text(probe), (
        f"the kernel is not this Python: {_text(probe)}")
    assert f"jax_nbhelp from: {ROOT / 'jax_nbhelp'}" in _text(probe), (
        f"the kernel's jax_nbhelp is not this checkout's: {_text(probe)}")
    assert not pending, f"fixes planned but never needed: {pending}"
    return session


def _sources(path: Path) -> list[str]:
    nb = nbformat.read(path, as_version=4)
    return [cell.source for cell in nb.cells if cell.cell_type == "code"]


def _check_cells(path: Path) -> list[str]:
    nb = nbformat.read(path, as_version=4)
    return [cell.source for cell in nb.cells
            if cell.cell_type == "code" and "check" in cell.metadata.get("tags", [])]


def _assert_checks_passed(session: Session, path: Path) -> None:
    checks = _check_cells(path)
    assert checks, f"{path.name} has no check cell"
    ran = {cell.source: cell for cell in session.cells}
    for source in checks:
        cell = ran[source]
        assert not _errors(cell), _show(cell)
        assert "checks passed" in _text(cell), _show(cell)


def test_the_tutorials_are_here() -> None:
    assert [p.stem for p in NOTEBOOKS] == sorted(PLANS)


def test_committed_tutorials_have_no_outputs_and_start_with_the_extension() -> None:
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        code = [cell for cell in nb.cells if cell.cell_type == "code"]
        assert code[0].source == "%load_ext jax_nbhelp", path.name
        for cell in code:
            where = f"{path.name}: clear the outputs before committing\n{cell.source}"
            assert not cell.outputs, where
            assert cell.execution_count is None, where
            # Written as for a TPU: no interpret mode in the source.
            assert "interpret" not in cell.source, where


@pytest.mark.kernel
@pytest.mark.parametrize("name", ["01_blocked_matmul", "02_pipelined_reduction", "03_core_map"])
def test_tutorial_runs_after_its_fixes(name: str) -> None:
    path = HERE / f"{name}.ipynb"
    session = drive(_sources(path), PLANS[name])
    assert [d["code"] for d in session.diagnoses] == [code for code, _ in PLANS[name]]
    assert session.fixes == [label for _, label in PLANS[name]]
    # A one-device CPU runtime, as a learner's; the one click is still in force at the end.
    assert "devices: 1" in session.text()
    assert "is on for this kernel" in session.interpret, session.interpret
    _assert_checks_passed(session, path)


@pytest.mark.kernel
def test_without_from_now_on_every_kernel_cell_needs_its_own_fix() -> None:
    """The contrast: a learner who takes the one-off re-run in interpret mode each time
    needs one fix per cell that runs a kernel; the second cell's two kernels share one."""
    path = HERE / "01_blocked_matmul.ipynb"
    once = "Re-run in TPU interpret mode"
    session = drive(_sources(path), [("JNH201", once), ("JNH201", once)])
    assert session.fixes == [once, once]
    assert "no interpret mode is on" in session.interpret, session.interpret
    for bundle in session.diagnoses:
        # On a CPU runtime the first fix offered is the one that carries.
        assert bundle["fixes"][0]["label"] == FROM_NOW_ON
    _assert_checks_passed(session, path)


@pytest.mark.kernel
def test_distributed_tutorial_runs_after_a_restart_with_the_first_cell_from_the_note() -> None:
    path = HERE / "04_distributed.ipynb"
    sources = _sources(path)

    # As written, on a one-device CPU runtime: the mesh cell fails, with no fix to apply.
    first_run = drive(sources, [], stop_on=("JNH207",))
    assert first_run.stopped is not None, "the two-device mesh did not fail on one device"
    assert first_run.stopped.source.startswith("mesh = jax.make_mesh((2,)")
    (bundle,) = first_run.diagnoses
    assert bundle["fixes"] == []
    assert "needs 2 devices" in bundle["explanation"]
    notes = bundle["notes"]
    restart = next(i for i, note in enumerate(notes) if "restart the kernel" in note)
    first_cell = notes[restart + 1]
    assert first_cell.startswith("import jax"), notes
    assert '"jax_num_cpu_devices", 2)' in first_cell, notes
    assert first_run.fixes == []

    # A fresh kernel, the note's cell at the very top, then the notebook as written.
    second_run = drive([first_cell, *sources], PLANS["04_distributed"])
    assert [d["code"] for d in second_run.diagnoses] == ["JNH201"]
    assert second_run.fixes == [FROM_NOW_ON]
    assert "devices: 2" in second_run.text()
    assert "is on for this kernel" in second_run.interpret, second_run.interpret
    _assert_checks_passed(second_run, path)
