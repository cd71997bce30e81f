"""Notebooks in CI, as a course's maintainer runs them: ``pytest --nbhelp DIR`` (the plugin
that installing jax_nbhelp registers) and ``jax_nbhelp doctor DIR -j 2``, on a folder with a
clean notebook, a Pallas kernel on a CPU, a missing package, a lesson's tagged failure, an
everyday error and a notebook that asks to be skipped (``ci_folder.py``). Each notebook runs
in a real kernel."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import nbformat
import pytest
from ci_folder import EXPECTED, SKIPPED, make

from jax_nbhelp.core import packages
from jax_nbhelp.doctor import needs


def pytest_nbhelp(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                           "-p", "no:randomly", *map(str, args)],
                          cwd=cwd, capture_output=True, text=True, timeout=1200, check=False)


def doctor(*args: str | Path, cwd: Path, env: dict[str, str] | None = None
           ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "jax_nbhelp", "doctor", *map(str, args)],
                          cwd=cwd, capture_output=True, text=True, timeout=1200, check=False,
                          env=env)


def outcomes(junit: Path) -> dict[str, tuple[str, str]]:
    """notebook name -> (passed/failed/skipped, the failure's text)."""
    found = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = case.get("name", "").removesuffix(".ipynb")
        failure = case.find("failure")
        skipped = case.find("skipped")
        if failure is not None:
            found[name] = ("failed", (failure.get("message") or "") + (failure.text or ""))
        elif skipped is not None:
            found[name] = ("skipped", skipped.get("message") or "")
        else:
            found[name] = ("passed", "")
    return found


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make(tmp_path_factory.mktemp("ci") / "course")


def _check_outcomes(found: dict[str, tuple[str, str]]) -> None:
    assert set(found) == {*EXPECTED, SKIPPED}
    assert found[SKIPPED][0] == "skipped"
    assert "needs a TPU runtime" in found[SKIPPED][1]
    for name, (passes, code, recommends) in EXPECTED.items():
        state, text = found[name]
        assert state == ("passed" if passes else "failed"), (name, text)
        if code is not None:
            assert f"[{code}]" in text, text
        assert ("Recommended fix:" in text) is recommends, text
    missing = found["missing"][1]
    assert "ModuleNotFoundError: No module named 'tensorflow_datasets'" in missing
    assert "pip install tensorflow-datasets" in missing
    assert "-> 2 | x[0] = 1.0" in found["everyday"][1]  # the cell's line, as written


def test_pytest_nbhelp_reports_each_notebook_with_its_diagnosis(course: Path) -> None:
    junit = course.parent / "plain.xml"
    proc = pytest_nbhelp("--nbhelp", course, "--junitxml", junit, cwd=course.parent)
    assert proc.returncode == 1, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "3 failed, 2 passed, 1 skipped" in proc.stdout, proc.stdout[-3000:]
    _check_outcomes(outcomes(junit))
    # nbmake's ids: the notebook's path, then its file name
    assert "FAILED course/week2/everyday.ipynb::everyday.ipynb" in proc.stdout


def test_two_workers_give_the_same_result(course: Path) -> None:
    junit = course.parent / "xdist.xml"
    proc = pytest_nbhelp("--nbhelp", course, "-n", "2", "--junitxml", junit,
                         cwd=course.parent)
    assert proc.returncode == 1, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "2 workers" in proc.stdout
    _check_outcomes(outcomes(junit))


def test_fix_says_whether_it_works_and_write_keeps_the_inputs(course: Path,
                                                               tmp_path: Path) -> None:
    before = {path: path.read_bytes() for path in course.rglob("*.ipynb")}
    out = tmp_path / "repaired"
    proc = pytest_nbhelp("--nbhelp", course / "week2", "--nbhelp-fix", "--nbhelp-write", out,
                         cwd=course.parent)
    assert proc.returncode == 1, proc.stdout[-3000:]  # the notebook as written still fails
    assert 'Fix "Use x.at[0].set(1.0)" works: verified by running it' in proc.stdout
    assert {path: path.read_bytes() for path in course.rglob("*.ipynb")} == before
    (written,) = out.rglob("*.ipynb")
    assert written.name == "everyday.ipynb"
    # the repaired notebook passes, in a fresh kernel
    proc = pytest_nbhelp("--nbhelp", written, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "x = x.at[0].set(1.0)" in nbformat.read(written, as_version=4).cells[1].source


def test_without_the_flag_notebooks_are_not_collected(course: Path) -> None:
    proc = pytest_nbhelp(course, cwd=course.parent)
    assert proc.returncode == 5, proc.stdout[-2000:]  # no tests: pytest's own exit code


def test_doctor_over_a_folder_prints_one_table_and_totals(course: Path) -> None:
    proc = doctor(course, "-j", "2", "--keep-going", "--quiet", cwd=course.parent)
    assert proc.returncode == 1, proc.stderr  # the worst notebook's
    text = proc.stdout
    rows = [line for line in text.splitlines() if line.startswith("| ") and ".ipynb" in line]
    assert len(rows) == len(EXPECTED) + 1, text
    assert "| **6 notebooks** |" in text
    assert "## Errors by diagnosis" in text
    for code in ("JNH201", "JNH501", "JNH611"):
        assert f"| {code} |" in text
    assert "install it with `pip install tensorflow-datasets`" in text
    assert "knock-on (cell 2 failed before binding tfds)" in text
    assert "skipped: needs a TPU runtime" in text

    proc = doctor(course, "-j", "2", "--keep-going", "--quiet", "--json", cwd=course.parent)
    data = json.loads(proc.stdout)
    assert data["exit"] == 1
    by_name = {Path(n["path"]).stem: n for n in data["notebooks"]}
    assert by_name["missing"]["knock_on"] == 1
    assert by_name["missing"]["failed"] == 1
    assert by_name["lesson"]["exit"] == 0
    assert by_name["clean"]["exit"] == 0
    assert {t["code"] for t in data["totals"]} >= {"JNH201", "JNH501"}
    assert data["needs"][0]["need"].startswith("needs tensorflow_datasets")


def test_on_github_actions_each_failure_is_an_annotation(course: Path) -> None:
    env = {**os.environ, "GITHUB_ACTIONS": "true"}
    proc = doctor(course / "week2", "--quiet", cwd=course.parent, env=env)
    assert proc.returncode == 1
    (command,) = [line for line in proc.stdout.splitlines() if line.startswith("::error ")]
    assert ",title=JNH501::cell 2: TypeError" in command
    line = int(command.split(",line=")[1].split(",")[0])
    file_lines = (course / "week2" / "everyday.ipynb").read_text().splitlines()
    assert "x[0] = 1.0" in file_lines[line - 1]  # the line of the file that holds it


def test_bad_paths_are_named_and_the_rest_still_checked(course: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (tmp_path / "notes.ipynb").write_text("not json")
    proc = doctor(empty, tmp_path / "nothing*.ipynb", tmp_path / "notes.ipynb",
                  course / "clean.ipynb", "--quiet", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "empty: no notebooks (.ipynb) in this folder" in proc.stderr
    assert "nothing*.ipynb: no notebooks match" in proc.stderr
    assert "notes.ipynb: not a notebook" in proc.stderr
    assert "| 2/2 | 0 |" in proc.stdout  # clean.ipynb was checked all the same


def test_a_kernel_that_dies_fails_its_notebook_with_the_cell_that_ran(tmp_path: Path) -> None:
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_markdown_cell("The next cell ends its process."),
        nbformat.v4.new_code_cell("import os\nos._exit(3)"),
        nbformat.v4.new_code_cell("y = 2"),
    ])
    nbformat.write(notebook, tmp_path / "dies.ipynb")
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("z = 3")]),
                   tmp_path / "fine.ipynb")
    junit = tmp_path / "junit.xml"
    proc = pytest_nbhelp("--nbhelp", tmp_path, f"--junitxml={junit}", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    found = outcomes(junit)
    assert found["fine"] == ("passed", "")
    status, text = found["dies"]
    assert status == "failed"
    assert "the kernel died while cell 3 ran" in text
    assert "os._exit(3)" in text
    checked = doctor(tmp_path / "dies.ipynb", "--quiet", cwd=tmp_path)
    assert checked.returncode != 0
    assert "the kernel died while cell 3 ran" in checked.stderr


@pytest.mark.parametrize("after", [10.0, 0.0], ids=["in-long-cells", "while-kernels-start"])
def test_ctrl_c_stops_with_130_and_writes_nothing(tmp_path: Path, after: float) -> None:
    """Ctrl-C into the notebooks' long cells, or while their kernels still start (stop()
    found no kernel to shut down then, and the doctor ran on into the long cells)."""
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_code_cell("import time\ntime.sleep(600)"),
    ])
    for name in ("slow_a", "slow_b"):
        nbformat.write(notebook, tmp_path / f"{name}.ipynb")
    before = (tmp_path / "slow_a.ipynb").read_bytes()
    proc = subprocess.Popen([sys.executable, "-m", "jax_nbhelp", "doctor", str(tmp_path),
                             "-j", "2", "--in-place"], cwd=tmp_path, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None \
            and len(_kernels(proc.pid)) < 2:
        time.sleep(1)
    kernels = _kernels(proc.pid)
    assert len(kernels) == 2
    time.sleep(after)  # into their long cells, or while they start
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted (Ctrl-C)" in err
    assert (tmp_path / "slow_a.ipynb").read_bytes() == before
    assert not list(tmp_path.glob("*.bak"))
    time.sleep(2)
    assert not [pid for pid in kernels if _alive(pid)]  # their kernels were shut down


def _kernels(parent: int) -> list[int]:
    """The ipykernel processes that ``parent`` started."""
    found = subprocess.run(["pgrep", "-P", str(parent), "-f", "ipykernel"],
                           capture_output=True, text=True, check=False)
    return [int(pid) for pid in found.stdout.split()]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


# What a failure needs, and what came only from it: no kernel needed.

@pytest.mark.parametrize(("module", "pip"), [
    ("sklearn", "scikit-learn"), ("tensorflow_datasets", "tensorflow-datasets"),
    ("orbax.checkpoint", "orbax-checkpoint"), ("flax.linen", "flax"), ("PIL", "pillow"),
    ("optax", "optax"), ("haiku", "dm-haiku"),
])
def test_a_missing_module_is_named_with_what_pip_installs(module: str, pip: str) -> None:
    need = needs.need_of("ModuleNotFoundError", f"No module named '{module}'", 3)
    assert need is not None
    assert need.install == f"pip install {pip}"


@pytest.mark.parametrize(("ename", "evalue", "printed", "kind"), [
    ("RuntimeError", "Unknown backend: 'gpu' requested, but no platforms that are instances "
     "of gpu are present. Platforms present are: cpu", "", "gpu"),
    ("RuntimeError", "Backend 'tpu' failed to initialize: INTERNAL: Failed to open libtpu.so",
     "", "tpu"),
    ("ModuleNotFoundError", "No module named 'cutlass'", "", "gpu"),
    ("", "", "/bin/bash: line 1: nvidia-smi: command not found\n", "gpu"),
])
def test_a_missing_accelerator_makes_the_rest_knock_on(ename: str, evalue: str, printed: str,
                                                       kind: str) -> None:
    follow = needs.KnockOn()
    follow.output(printed, 1)
    if ename:
        assert follow.failure(ename, evalue, 1, "x = setup()") is None
    assert [need.kind for need in follow.needs] == [kind]
    later = follow.failure("ValueError", "anything at all", 2, "y = 1")
    assert later is not None
    assert later.startswith(f"the notebook needs a {kind.upper()}")


def test_only_what_a_failed_cell_would_have_bound_is_knock_on() -> None:
    follow = needs.KnockOn()
    assert follow.failure("ModuleNotFoundError", "No module named 'optax'", 2,
                          "import optax\nopt = optax.adam(1e-3)") is None
    assert follow.failure("NameError", "name 'opt' is not defined", 3, "state = opt.init(p)")
    assert follow.failure("NameError", "name 'state' is not defined", 4, "print(state)")
    assert follow.failure("NameError", "name 'params' is not defined", 5, "params") is None
    assert follow.failure("ModuleNotFoundError", "No module named 'optax'", 6, "import optax")
    assert follow.failure("KeyError", "'a'", 7, "{}['a']") is None  # the user's own


def test_the_ecosystem_lists_are_import_names() -> None:
    assert packages.in_ecosystem("flax.linen")
    assert not packages.in_ecosystem("sklearn")
    assert all(name.isidentifier() for name in packages.JAX_ECOSYSTEM | packages.GPU_ONLY)
