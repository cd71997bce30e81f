"""The whole catalog on an older JAX, in its own virtual environment (how CI checks it).

Fixes are spelled for the installed JAX from capability probes (``InterpretGPUParams`` lives
elsewhere in 0.9, ``plgpu.kernel`` takes ``out_shape=`` there), so the catalog's examples must
pass on 0.9.2 exactly as on the newest release. The environment is built once under the user
cache directory and reused; the test is skipped only when pip cannot reach the registry.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
JAX_VERSION = "0.9.2"
REQUIREMENTS = (
    f"jax[cpu]=={JAX_VERSION}",
    "absl-py",  # Mosaic GPU Pallas (plgpu) imports it
    "pytest>=8",
    "ipython>=8.12",
    "libcst>=1.1",
)
CACHE = Path(
    os.environ.get("JAX_NBHELP_TEST_CACHE")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "jax_nbhelp-tests"
)

_OFFLINE_SIGNS = (
    "Could not find a version that satisfies",
    "No matching distribution found",
    "Failed to establish a new connection",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "Max retries exceeded",
    "ProxyError",
)


def _python(env_dir: Path) -> Path:
    scripts = "Scripts" if sys.platform == "win32" else "bin"
    return env_dir / scripts / ("python.exe" if sys.platform == "win32" else "python")


def _environment(env_dir: Path) -> Path:
    """The cached environment, built (or rebuilt for a new requirement list) when needed."""
    python = _python(env_dir)
    stamp = env_dir / ".jax_nbhelp-ready"
    wanted = "\n".join((*REQUIREMENTS, f"-e {ROOT}"))
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    proc = subprocess.run(
        [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q",
         *REQUIREMENTS, "-e", str(ROOT)],
        capture_output=True, text=True, timeout=1200, check=False,
    )
    if proc.returncode != 0:
        output = proc.stdout + proc.stderr
        if any(sign in output for sign in _OFFLINE_SIGNS):
            pytest.skip(f"pip cannot install jax {JAX_VERSION} here (no registry?): "
                        f"{output.strip().splitlines()[-1]}")
        pytest.fail(f"installing the jax {JAX_VERSION} environment failed:\n{output}")
    stamp.write_text(wanted)
    return python


def test_catalog_passes_on_jax_0_9_2() -> None:
    python = _environment(CACHE / f"jax-{JAX_VERSION}")
    version = subprocess.run(
        [str(python), "-c", "import jax; print(jax.__version__)"],
        capture_output=True, text=True, timeout=300, check=True,
    ).stdout.strip()
    assert version == JAX_VERSION
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PYTHON", "PYTEST", "VIRTUAL_ENV"))}
    proc = subprocess.run(
        [str(python), "-m", "pytest", "tests/test_catalog.py", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False,
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
