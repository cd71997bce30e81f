"""The JupyterLab extension as a user gets it: installed by the README's one command,
listed enabled and OK, shipped prebuilt in the wheel (no Node.js needed to install it),
and its TypeScript unit tests (renderer, edit logic) pass."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LABEXTENSION = ROOT / "labextension"
BUILT = ROOT / "jax_nbhelp" / "labextension"
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, check=False,
                          timeout=900, **kwargs)  # type: ignore[call-overload]


def _listed(output: str) -> list[str]:
    return [line.strip() for line in _ANSI.sub("", output).splitlines()
            if line.strip().startswith("jax-nbhelp ")]


def test_the_install_command_leaves_the_extension_enabled_and_ok() -> None:
    proc = _run([sys.executable, "-m", "jupyter", "labextension", "list"])
    assert proc.returncode == 0, proc.stderr
    listed = _listed(proc.stdout + proc.stderr)
    assert listed, proc.stdout + proc.stderr
    assert all("enabled" in line and "OK" in line for line in listed), listed


def test_the_typescript_unit_tests_pass() -> None:
    jlpm = shutil.which("jlpm")
    if not (LABEXTENSION / "node_modules").is_dir() or jlpm is None:
        if os.environ.get("CI"):
            pytest.fail("labextension/node_modules is missing: the install did not build it")
        pytest.skip("the extension's node_modules are not installed")
    proc = _run([jlpm, "test", "--ci"], cwd=LABEXTENSION)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert "failed" not in proc.stderr.split("Tests:")[-1].split("\n")[0]


def test_a_wheel_installs_the_prebuilt_extension_where_node_is_absent(tmp_path: Path) -> None:
    assert (BUILT / "package.json").exists(), "the install did not build the extension"
    # Node.js out of PATH: the wheel must need nothing but what it carries.
    node = shutil.which("node")
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                           if not node or Path(p).resolve() != Path(node).resolve().parent)
    env = {**os.environ, "PATH": path}
    wheels = tmp_path / "wheels"
    proc = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                 "-w", str(wheels), str(ROOT)], env=env)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (wheel,) = wheels.glob("jax_nbhelp-*.whl")
    target = tmp_path / "venv"
    # A fresh environment that sees this environment's packages (JupyterLab), wherever the
    # suite runs (in a virtual environment, "system site packages" would be the base
    # interpreter's, which has none), through a .pth file; its own prefix holds the wheel.
    venv.EnvBuilder(with_pip=False).create(target)
    python = target / "bin" / "python"
    site = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                env=env).stdout.strip()
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (Path(site) / "_outer_environment.pth").write_text("\n".join(sorted(ours)) + "\n")
    proc = _run([sys.executable, "-m", "pip", "install", "--no-deps", "--prefix", str(target),
                 "--ignore-installed", str(wheel)], env=env)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    shared = target / "share" / "jupyter" / "labextensions" / "jax-nbhelp"
    assert (shared / "package.json").exists()
    assert list((shared / "static").glob("remoteEntry.*.js"))
    proc = _run([str(python), "-m", "jupyter", "labextension", "list"],
                env={**env, "JUPYTER_PATH": "", "JUPYTER_DATA_DIR": str(tmp_path / "data")})
    output = _ANSI.sub("", proc.stdout + proc.stderr)
    section = output.split(str(target / "share" / "jupyter" / "labextensions"))[-1]
    assert "jax-nbhelp v0.1.0 enabled OK" in section, output
