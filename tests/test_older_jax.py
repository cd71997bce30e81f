"""The whole catalog on an older JAX, in its own virtual environment (how CI checks it).

Fixes are spelled for the installed JAX from capability probes (``InterpretGPUParams`` lives
elsewhere in 0.9, ``plgpu.kernel`` takes ``out_shape=`` there), so the catalog's examples must
pass on 0.9.2 exactly as on the newest release.
"""

from __future__ import annotations

from venvs import environment, run_pytest, version_of

JAX_VERSION = "0.9.2"
REQUIREMENTS = (
    f"jax[cpu]=={JAX_VERSION}",
    "absl-py",  # Mosaic GPU Pallas (plgpu) imports it
    "pytest>=8",
    "ipython>=8.12",
    "libcst>=1.1",
    "jsonschema>=4.18",  # the catalog test checks bundles against docs/diagnosis.schema.json
)


def test_catalog_passes_on_jax_0_9_2() -> None:
    python = environment(f"jax-{JAX_VERSION}", REQUIREMENTS)
    assert version_of(python, "jax") == JAX_VERSION
    proc = run_pytest(python, "tests/test_catalog.py")
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
