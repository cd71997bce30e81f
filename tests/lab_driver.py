"""A real JupyterLab server on 127.0.0.1 and a real Chromium driven by Playwright.

Used by tests/test_card_browser.py and docs/make_screenshot.py. Chromium comes from the
system (Debian: ``apt-get install -y chromium``); Playwright's own browser download is not
used. The kernel imports this checkout of jax_nbhelp (``PYTHONPATH``).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("JAX_NBHELP_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

FLAGSHIP_CELLS = [
    "%load_ext jax_nbhelp",
    "import jax, jax.numpy as jnp\n"
    "from jax.experimental import pallas as pl\n"
    "from jax.experimental.pallas import tpu as pltpu",
    "def scaled(x):\n"
    "    def body(ref):\n"
    "        ref[...] = x * 2\n"
    "        return ref[...] + 1\n"
    '    return pl.run_scoped(body, pltpu.VMEM(x.shape, x.dtype), collective_axes="core")',
    "out = jax.jit(scaled)(jnp.ones((8, 128)))",
]


def missing() -> str | None:
    """Why a browser run cannot happen here, or None when it can."""
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (Debian: apt-get install -y chromium)"
    for module in ("playwright", "jupyterlab", "ipywidgets"):
        try:
            __import__(module)
        except ImportError:
            return f"the {module} package is not installed (pip install -e '.[test]')"
    return None


def write_notebook(path: Path, cells: list[str]) -> None:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, str(path))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def jupyterlab(root: Path, *, extension: bool = True, app: str = "jupyterlab") -> Iterator[str]:
    """Serve ``root`` with JupyterLab, or Notebook 7 (``app="notebook"``), with no token and
    isolated settings; yield its base URL. ``extension=False`` disables jax_nbhelp's
    JupyterLab extension, as in a frontend that cannot load it (the widget card shows)."""
    port = _free_port()
    state = Path(tempfile.mkdtemp(prefix="jnh-lab-"))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env["JUPYTER_RUNTIME_DIR"] = str(state / "runtime")
    env["JUPYTER_CONFIG_DIR"] = str(state / "config")
    command = [
        sys.executable, "-m", app, "--no-browser", "--ip=127.0.0.1",
        f"--port={port}", f"--ServerApp.root_dir={root}", "--IdentityProvider.token=",
        "--ServerApp.password=", "--ServerApp.disable_check_xsrf=True",
        "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=None",
        f"--LabApp.user_settings_dir={state / 'settings'}",
        f"--LabApp.workspaces_dir={state / 'workspaces'}",
    ]
    # No "Jupyter news?" toast over the page, no update check (there is no network).
    notification = state / "settings" / "@jupyterlab" / "apputils-extension"
    notification.mkdir(parents=True)
    (notification / "notification.jupyterlab-settings").write_text(
        '{"fetchNews": "false", "checkForUpdates": false}'
    )
    if not extension:
        labconfig = state / "config" / "labconfig"
        labconfig.mkdir(parents=True)
        (labconfig / "page_config.json").write_text(
            '{"disabledExtensions": {"jax-nbhelp": true}}')
    if app == "notebook":
        command = [c.replace("--LabApp.", "--JupyterNotebookApp.") for c in command
                   if "news_url" not in c]
        command.append("--expose-app-in-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    log = open(state / "server.log", "wb")  # noqa: SIM115 - closed below
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status", timeout=2)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError((state / "server.log").read_text()) from None
                time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
        shutil.rmtree(state, ignore_errors=True)


@contextmanager
def chromium(width: int = 1100, height: int = 1400) -> Iterator[Any]:
    """A Playwright page in the system Chromium."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            yield page
        finally:
            browser.close()


def open_notebook(page: Any, url: str, name: str, theme: str = "JupyterLab Light") -> None:
    """Open notebook ``name``, wait for its kernel, switch to ``theme``."""
    page.goto(f"{url}/lab/tree/{name}")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
    page.wait_for_function("window.jupyterapp !== undefined", timeout=90_000)
    page.evaluate("theme => window.jupyterapp.commands.execute('apputils:change-theme', "
                  "{theme})", theme)
    page.evaluate("window.jupyterapp.shell.collapseLeft()")
    wait_idle(page)


PANEL = "window.jupyterapp.shell.currentWidget"


def open_in(page: Any, url: str, app: str, name: str) -> None:
    """Open notebook ``name`` in ``app`` ("jupyterlab" or Notebook 7's "notebook")."""
    if app == "jupyterlab":
        open_notebook(page, url, name)
        return
    page.goto(f"{url}/notebooks/{name}")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
    page.wait_for_function("window.jupyterapp !== undefined", timeout=90_000)
    wait_idle(page)


def cell_source(page: Any, index: int) -> str:
    """The source of the open notebook's cell ``index``, as its model holds it now."""
    return str(page.evaluate(
        f"i => {PANEL}.content.widgets[i].model.sharedModel.getSource()", index))


def wait_idle(page: Any, timeout_ms: int = 120_000) -> None:
    """Wait until the notebook's kernel is started and idle."""
    page.wait_for_function(
        "() => { const w = window.jupyterapp.shell.currentWidget;"
        " const k = w && w.sessionContext && w.sessionContext.session"
        " && w.sessionContext.session.kernel; return !!k && k.status === 'idle'; }",
        timeout=timeout_ms,
    )


def live_card(page: Any) -> Any:
    """Run all, then wait for the first native card and for its buttons to be enabled (the
    kernel said it still knows the diagnosis); returns the card's locator."""
    run_all(page)
    card = page.locator(".jnh-native").first
    card.wait_for(timeout=180_000)
    wait_idle(page)
    page.wait_for_function(
        "() => !document.querySelector('.jnh-native button.jnh-button').disabled",
        timeout=60_000)
    return card


def run_all(page: Any) -> None:
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")


def save(page: Any) -> None:
    page.evaluate("window.jupyterapp.commands.execute('docmanager:save')")
