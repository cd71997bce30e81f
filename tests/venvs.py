"""Cached virtual environments for running part of the suite on another stack.

CI checks the catalog on an older JAX and on the IPython/ipywidgets Colab ships; each stack
gets its own environment under the user cache directory, built once and reused, with this
checkout installed in it. A test is skipped only when pip cannot reach the registry.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

try:
    import fcntl
except ImportError:  # Windows: one process at a time is the user's care
    fcntl = None  # type: ignore[assignment]

ROOT = Path(__file__).resolve().parent.parent
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


def environment(name: str, requirements: tuple[str, ...]) -> Path:
    """The python of the cached environment ``name``, (re)built when its requirements change.

    One process builds it at a time (the suite's workers, or two runs of it, may ask at
    once): the others wait for the lock, then find it ready."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{name}.lock", "w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        return _environment(name, requirements)


def _environment(name: str, requirements: tuple[str, ...]) -> Path:
    env_dir = CACHE / name
    python = _python(env_dir)
    stamp = env_dir / ".jax_nbhelp-ready"
    wanted = "\n".join((*requirements, f"-e {ROOT}"))
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    proc = subprocess.run(
        [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q",
         *requirements, "-e", str(ROOT)],
        capture_output=True, text=True, timeout=1200, check=False,
    )
    if proc.returncode != 0:
        output = proc.stdout + proc.stderr
        if any(sign in output for sign in _OFFLINE_SIGNS):
            pytest.skip(f"pip cannot build the {name} environment here (no registry?): "
                        f"{output.strip().splitlines()[-1]}")
        pytest.fail(f"installing the {name} environment failed:\n{output}")
    stamp.write_text(wanted)
    return python


def version_of(python: Path, module: str) -> str:
    return subprocess.run(
        [str(python), "-c", f"import {module}; print({module}.__version__)"],
        capture_output=True, text=True, timeout=300, check=True,
    ).stdout.strip()


def run_pytest(python: Path, *paths: str) -> subprocess.CompletedProcess[str]:
    """Run this checkout's tests ``paths`` with the environment's python."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PYTHON", "PYTEST", "VIRTUAL_ENV"))}
    return subprocess.run(
        # the environment has no pytest-xdist: the project's addopts (two workers) are not
        # for it
        [str(python), "-m", "pytest", *paths, "-q", "-p", "no:cacheprovider",
         "-o", "addopts=-ra --strict-markers"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False,
    )
