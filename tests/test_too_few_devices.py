"""The first cell JNH207 (too-few-devices) gives really works: in a fresh Python process, as
the first cell of a new IPython session, it gives JAX the devices the failing code asked for,
and the failing code then runs and computes the right numbers. Also: setting the count once
JAX has started raises (which is why the diagnosis asks for a restart and offers no fix)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import Notebook

import jax_nbhelp
from jax_nbhelp.catalog._example import PRELUDE
from jax_nbhelp.catalog.devices import too_few_devices as entry

# Each failing example, run on the devices it asks for: (devices, what it then computes).
SIMULATED = {
    'mesh = jax.make_mesh((2,), ("x",))': (2, 'dict(mesh.shape) == {"x": 2}'),
    "devices = mesh_utils.create_device_mesh((4, 2))": (
        8, "devices.shape == (4, 2) and len({d.id for d in devices.flat}) == 8"),
    "out = jax.pmap(lambda x: x * 2)(jnp.arange(2.0))": (2, "out.tolist() == [0.0, 2.0]"),
}

# Runs cells in a new IPython session, then reports the device count, the check, and
# whether changing the count afterwards is refused.
_SESSION = """\
import json, sys
from IPython.core.interactiveshell import InteractiveShell

cells, check, devices = json.loads(sys.argv[1]), sys.argv[2], int(sys.argv[3])
shell = InteractiveShell.instance(colors="nocolor")
for cell in cells:
    result = shell.run_cell(cell, store_history=True)
    if not result.success:
        print(json.dumps({"failed": cell, "error": repr(result.error_in_exec)}))
        sys.exit(0)
jax = shell.user_ns["jax"]
try:
    jax.config.update("jax_num_cpu_devices", devices + 1)
    late = "accepted"
except RuntimeError as error:
    late = str(error)
print(json.dumps({"devices": jax.device_count(), "platform": jax.default_backend(),
                  "check": bool(eval(check, shell.user_ns)), "late": late}))
"""


def _fresh_session(cells: list[str], check: str, devices: int) -> dict[str, object]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("XLA_FLAGS", "JAX_PLATFORMS", "JAX_NUM_CPU_DEVICES")}
    proc = subprocess.run(
        [sys.executable, "-c", _SESSION, json.dumps(cells), check, str(devices)],
        capture_output=True, text=True, timeout=300, check=False, env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "failed" not in report, report
    return report


def _cells(first: str, example) -> list[str]:
    return ["%load_ext jax_nbhelp", first, PRELUDE, *example.setup, example.failing]


def _example(failing: str):
    return next(example for example in entry.EXAMPLES if example.failing == failing)


@pytest.mark.parametrize("failing", list(SIMULATED))
def test_the_suggested_first_cell_gives_the_devices_the_code_needs(loaded: Notebook,
                                                                   failing: str) -> None:
    example = _example(failing)
    devices, check = SIMULATED[failing]
    for cell in example.setup:
        loaded.ok(cell)
    failed = loaded.run(example.failing)
    assert [d["code"] for d in failed.diagnoses] == [entry.CODE]
    diagnosis = jax_nbhelp.last()
    assert diagnosis is not None
    assert diagnosis.fixes == ()  # a restart is needed: nothing to apply in this kernel
    assert f"needs {devices} devices" in diagnosis.explanation
    assert "This runtime has 1: jax.devices() lists 1 CPU device." in diagnosis.explanation
    first = entry.first_cell(devices, config_option=entry.has_num_cpu_devices_option())
    assert first in diagnosis.notes  # the cell shown is the cell tested below

    report = _fresh_session(_cells(first, example), check, devices)
    assert report["devices"] == devices
    assert report["platform"] == "cpu"
    assert report["check"] is True
    assert "before backends are initialized" in str(report["late"])


@pytest.mark.parametrize(("config_option", "cpu_only"),
                         [(False, False), (True, True), (False, True)])
def test_every_spelling_of_the_first_cell_works(config_option: bool, cpu_only: bool) -> None:
    """The XLA-flag spelling (for a JAX without jax_num_cpu_devices) and the spellings for an
    accelerator runtime (which also select the CPU) work with the installed JAX."""
    failing = "out = jax.pmap(lambda x: x * 2)(jnp.arange(2.0))"
    first = entry.first_cell(2, config_option=config_option, cpu_only=cpu_only)
    report = _fresh_session(_cells(first, _example(failing)), SIMULATED[failing][1], 2)
    assert report["devices"] == 2
    assert report["platform"] == "cpu"
    assert report["check"] is True


# ---- the notebook's own device guard --------------------------------------------------------

GUARD = 'assert jax.device_count() > 1, "Please run this notebook with more than one device"'


def test_a_device_guard_gets_the_first_cell_that_passes_it(loaded: Notebook) -> None:
    failed = loaded.run(GUARD)
    assert [d["code"] for d in failed.diagnoses] == [entry.CODE]
    diagnosis = jax_nbhelp.last()
    assert diagnosis is not None
    assert diagnosis.fixes == ()
    assert "own check that it has at least 2 devices" in diagnosis.explanation
    assert "Please run this notebook with more than one device" in diagnosis.explanation
    first = entry.first_cell(2, config_option=entry.has_num_cpu_devices_option())
    assert first in diagnosis.notes
    # The cell shown makes the guard pass in a restarted kernel.
    report = _fresh_session(["%load_ext jax_nbhelp", first, PRELUDE, GUARD], "True", 2)
    assert report["devices"] == 2


@pytest.mark.parametrize("cells", [
    ["import jax as j", "n = j.local_device_count()\nassert n >= 4"],
    ["from jax import devices", "assert len(devices()) == 4, 'needs four'"],
])
def test_guards_under_other_spellings(loaded: Notebook, cells: list[str]) -> None:
    for cell in cells[:-1]:
        loaded.ok(cell)
    failed = loaded.run(cells[-1])
    assert [d["code"] for d in failed.diagnoses] == [entry.CODE]
    assert "at least 4 devices" in failed.diagnoses[0]["explanation"]


def test_a_guard_that_insists_on_a_tpu_says_so(loaded: Notebook) -> None:
    failed = loaded.run('assert jax.default_backend() == "tpu", "Run this with TPU devices"')
    (bundle,) = failed.diagnoses
    assert bundle["code"] == entry.CODE
    assert "runs on TPU devices" in bundle["explanation"]
    assert any("TPU runtime" in note for note in bundle["notes"])
    assert bundle["fixes"] == []


@pytest.mark.parametrize("cell", [
    "x = 3\nassert x > 5",
    "class Box:\n    devices = []\nassert len(Box.devices) > 1",  # not JAX's devices()
    "assert False, 'Please run this notebook with more than one device'",
    "raise AssertionError(str(jax.device_count()))",
])
def test_other_asserts_stay_silent(loaded: Notebook, cell: str) -> None:
    failed = loaded.run(cell)
    assert isinstance(failed.error, AssertionError)
    assert failed.diagnoses == []
