"""A real IPython shell for every test; nothing about JAX or IPython is mocked."""

from __future__ import annotations

import contextlib
import gc
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

import jax_nbhelp
from jax_nbhelp.catalog._example import PRELUDE
from jax_nbhelp.core.session import current
from jax_nbhelp.jaxapi.capabilities import clear_failed_gpu_interpreter
from jax_nbhelp.show.render_text import MIME_TYPE

PALLAS_IMPORTS = PRELUDE
SCHEMA = Path(__file__).resolve().parent.parent / "docs" / "diagnosis.schema.json"


def validate_bundle(bundle: dict[str, Any], definition: str | None = None) -> None:
    """Raise if ``bundle`` breaks docs/diagnosis.schema.json (or its ``$defs[definition]``),
    the contract the TypeScript side reads bundles by."""
    import jsonschema

    schema = json.loads(SCHEMA.read_text())
    if definition is not None:
        schema = {**schema, "$ref": f"#/$defs/{definition}"}
    jsonschema.Draft202012Validator(schema).validate(bundle)

@contextlib.contextmanager
def real_kernel() -> Iterator[tuple[Any, Any]]:
    """A fresh python3 kernel (jupyter_client): its manager and a started client."""
    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(kernel_name="python3", startup_timeout=300)
    try:
        yield manager, client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def iopub_of(client: Any, msg_id: str, timeout: float = 300) -> Iterator[dict[str, Any]]:
    """The iopub messages of one request to a real kernel (jupyter_client), until it is
    idle (that status message included); AssertionError past ``timeout``."""
    import queue
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            msg = client.get_iopub_msg(timeout=5)
        except queue.Empty:
            continue
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        yield msg
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return
    raise AssertionError(f"the request did not end in {timeout} s")


# The flagship's helper: a kernel helper tested under plain jit (In [3] after `loaded`).
SCALED_HELPER = '''\
def scaled(x):
    def body(ref):
        ref[...] = x * 2
        return ref[...] + 1
    return pl.run_scoped(body, pltpu.VMEM(x.shape, x.dtype), collective_axes="core")'''


@dataclass
class CellOutput:
    """What one cell printed and displayed, and the error it ended with."""

    result: Any
    stdout: str
    stderr: str
    bundles: list[dict[str, Any]] = field(default_factory=list)

    @property
    def error(self) -> BaseException | None:
        return self.result.error_in_exec or self.result.error_before_exec

    @property
    def diagnoses(self) -> list[dict[str, Any]]:
        return [b[MIME_TYPE] for b in self.bundles if MIME_TYPE in b]


class Notebook:
    """Runs cells in a real InteractiveShell the way a notebook does (history, counts)."""

    def __init__(self, shell: InteractiveShell) -> None:
        self.shell = shell

    def run(self, source: str) -> CellOutput:
        with capture_output() as captured:
            result = self.shell.run_cell(source, store_history=True)
        bundles = [dict(output.data) for output in captured.outputs]
        return CellOutput(result, captured.stdout, captured.stderr, bundles)

    def ok(self, source: str) -> CellOutput:
        out = self.run(source)
        assert out.error is None, out.stdout + out.stderr
        return out

    def card(self, *setup: str, failing: str) -> dict[str, Any]:
        """Run each non-empty ``setup`` cell, then ``failing``, which must fail with exactly
        one card; that card's bundle, checked against the schema."""
        for source in setup:
            if source:
                self.ok(source)
        failed = self.run(failing)
        assert failed.error is not None
        (bundle,) = failed.diagnoses
        validate_bundle(bundle)
        return bundle

    def __getitem__(self, name: str) -> Any:
        return self.shell.user_ns[name]


# The suite's longest units, started first so that two workers (pytest-xdist, see
# pyproject's addopts) end together: each older JAX and Colab's stack run a part of the
# suite in a venv of their own, and the catalog page runs every example.
FIRST = ("test_older_jax.py::test_catalog_passes_on_an_older_jax[0.9.2]",
         "test_older_jax.py::test_catalog_passes_on_an_older_jax[0.8.3]",
         "test_colab_stack.py", "test_catalog_doc.py", "test_real_reports.py",
         "test_native_card_browser.py", "test_notebooks_in_ci.py", "test_catalog.py")


def _group(item: pytest.Item) -> str:
    """A worker's unit of work: a test file (its module fixtures are built once), or one of
    the long tests of FIRST on its own."""
    nodeid = item.nodeid.split("/")[-1]
    return next((first for first in FIRST if "::" in first and nodeid == first),
                nodeid.split("::")[0])


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.pluginmanager.hasplugin("xdist"):
        return  # a venv of another stack runs part of the suite without workers
    for item in items:
        item.add_marker(pytest.mark.xdist_group(_group(item)))
    rank = {first: index for index, first in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(_group(item), len(FIRST)))


@pytest.fixture(scope="session")
def ipython() -> InteractiveShell:
    return InteractiveShell.instance(colors="nocolor")


@pytest.fixture
def nb(ipython: InteractiveShell) -> Iterator[Notebook]:
    """A fresh notebook session (In [1] is the first cell) with jax_nbhelp not loaded."""
    ipython.reset(new_session=True)
    # reset collects garbage over the whole heap, which JAX's caches make large: what
    # outlives a reset is set aside (gc.freeze), so the next one scans one test's objects,
    # not every test's before it
    gc.freeze()
    current().last = current().last_result = None
    current().speed.clear()  # an earlier test's interpreted fix calibrates estimates
    yield Notebook(ipython)
    # the shell is shared by the tests, not a user's: a test that ended with a kernel failed
    # inside the GPU interpreter (jax_nbhelp not loaded) must not reach into the next
    clear_failed_gpu_interpreter()
    if "jax_nbhelp" in ipython.extension_manager.loaded:
        ipython.run_line_magic("unload_ext", "jax_nbhelp")
    jax_nbhelp.unload_ipython_extension(ipython)
    ipython.set_custom_exc((), None)


@pytest.fixture
def loaded(nb: Notebook) -> Notebook:
    """A notebook with `%load_ext jax_nbhelp` run and Pallas imported (In [1] and In [2])."""
    nb.ok("%load_ext jax_nbhelp")
    nb.ok(PALLAS_IMPORTS)
    return nb
