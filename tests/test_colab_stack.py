"""The hook, the flagship, the card, the catalog and the course on the stack Colab ships.

Colab's runtime pins IPython 7.34 and ipywidgets 7.7.1; `pip install jax_nbhelp` there must
not upgrade them, so jax_nbhelp supports both and this test runs the core of the suite with
exactly those versions (and the newest JAX), in its own cached virtual environment. The
course notebooks run there too, in a kernel of that environment (Colab's ipykernel 5.5.6).
"""

from __future__ import annotations

from venvs import ROOT, environment, run_pytest, version_of

REQUIREMENTS = (
    "ipython==7.34.0",
    "ipywidgets==7.7.1",
    "jax[cpu]",
    "absl-py",  # Mosaic GPU Pallas (plgpu) imports it
    "pytest>=8",
    "libcst>=1.1",
    "jsonschema>=4.18",  # the catalog test checks bundles against docs/diagnosis.schema.json
    # The course notebooks' kernel and runner. google-colab pins ipykernel 5.5.6 beside
    # IPython 7.34 (ipykernel 7 would install too, so pin the one Colab runs).
    "ipykernel==5.5.6",
    "nbclient>=0.10",
    "nbformat>=5.9",
)


def test_core_suite_passes_with_colabs_ipython_and_ipywidgets() -> None:
    python = environment("colab-ipython-7.34", REQUIREMENTS)
    assert version_of(python, "IPython") == "7.34.0"
    assert version_of(python, "ipywidgets") == "7.7.1"
    proc = run_pytest(python, "tests/test_hook.py", "tests/test_flagship.py",
                      "tests/test_card.py", "tests/test_catalog.py",
                      # IPython 7 counts a running cell after it runs: the checkup finds it
                      # by its history
                      "tests/test_kernel_checkup.py")
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]


def test_course_notebooks_run_in_a_kernel_with_colabs_ipython() -> None:
    python = environment("colab-ipython-7.34", REQUIREMENTS)
    assert version_of(python, "IPython") == "7.34.0"
    assert version_of(python, "ipykernel") == "5.5.6"
    # test_notebooks runs each notebook in a kernel of the python that runs it, and checks
    # that the kernel is that python: here the environment's, with IPython 7.34.
    proc = run_pytest(python, "tests/test_notebooks.py", "-k", "test_notebook_runs")
    count = len(list((ROOT / "notebooks").glob("*.ipynb")))
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
    assert f"{count} passed" in proc.stdout, proc.stdout[-3000:]
