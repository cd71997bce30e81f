"""The hook, the flagship, the card and the catalog on the stack Colab ships.

Colab's runtime pins IPython 7.34 and ipywidgets 7.7.1; `pip install jax_nbhelp` there must
not upgrade them, so jax_nbhelp supports both and this test runs the core of the suite with
exactly those versions (and the newest JAX), in its own cached virtual environment.
"""

from __future__ import annotations

from venvs import environment, run_pytest, version_of

REQUIREMENTS = (
    "ipython==7.34.0",
    "ipywidgets==7.7.1",
    "jax[cpu]",
    "absl-py",  # Mosaic GPU Pallas (plgpu) imports it
    "pytest>=8",
    "libcst>=1.1",
    "jsonschema>=4.18",  # the catalog test checks bundles against docs/diagnosis.schema.json
)


def test_core_suite_passes_with_colabs_ipython_and_ipywidgets() -> None:
    python = environment("colab-ipython-7.34", REQUIREMENTS)
    assert version_of(python, "IPython") == "7.34.0"
    assert version_of(python, "ipywidgets") == "7.7.1"
    proc = run_pytest(python, "tests/test_hook.py", "tests/test_flagship.py",
                      "tests/test_card.py", "tests/test_catalog.py")
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
