"""ruff and mypy are part of the test run, so CI's one test command checks them too."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, check=False)


def test_ruff_is_clean() -> None:
    proc = _run("ruff", "check", "jax_nbhelp", "tests", "benchmarks")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_is_clean() -> None:
    proc = _run("mypy")
    assert proc.returncode == 0, proc.stdout + proc.stderr
