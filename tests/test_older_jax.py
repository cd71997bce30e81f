"""The whole catalog on older JAX releases, each in its own virtual environment (how CI
checks them).

Fixes are spelled for the installed JAX from capability probes (``InterpretGPUParams`` lives
elsewhere in 0.9, ``plgpu.kernel`` takes ``out_shape=`` there), so the catalog's examples must
pass on 0.8.3 and 0.9.2 exactly as on the newest release, and so must the lessons of JAX's
docs (``tests/test_docs_errors.py``), the explained view of JAX's own checks and the raise
sites entries declare.
"""

from __future__ import annotations

import pytest
from venvs import environment, run_pytest, version_of

JAX_VERSIONS = ("0.8.3", "0.9.2")
TOOLS = (
    "absl-py",  # Mosaic GPU Pallas (plgpu) imports it
    "pytest>=8",
    "ipython>=8.12",
    "libcst>=1.1",
    "jsonschema>=4.18",  # the catalog test checks bundles against docs/diagnosis.schema.json
)


@pytest.mark.parametrize("jax_version", JAX_VERSIONS)
def test_catalog_passes_on_an_older_jax(jax_version: str) -> None:
    python = environment(f"jax-{jax_version}", (f"jax[cpu]=={jax_version}", *TOOLS))
    assert version_of(python, "jax") == jax_version
    proc = run_pytest(python, "tests/test_catalog.py", "tests/test_docs_errors.py",
                      "tests/test_fix_chains.py", "tests/test_explained_card.py",
                      "tests/test_raise_sites.py", "tests/test_honest_outcomes.py",
                      "tests/test_kernel_checkup.py")
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
