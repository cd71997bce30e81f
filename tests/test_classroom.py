"""Classroom mode: a diagnosis shows the cause, the place and why, and keeps its fixes back
until the student asks; through the magic and through IPython's configuration."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest
from conftest import SCALED_HELPER, Notebook, validate_bundle
from nbclient import NotebookClient

from jax_nbhelp.core.session import current
from jax_nbhelp.show.render_text import MIME_TYPE

FAILING = "out = jax.jit(scaled)(jnp.ones((8, 128)))"


def _bundle(cell) -> dict:
    """The one diagnosis bundle a cell displayed (an in-process cell or a kernel's)."""
    shown = (cell.bundles if hasattr(cell, "bundles")
             else [dict(out.data) for out in cell.outputs if "data" in out])
    (bundle,) = [bundle for bundle in shown if MIME_TYPE in bundle]
    return bundle


def test_hints_keep_fixes_back_in_text_card_and_bundle(loaded: Notebook) -> None:
    loaded.ok(SCALED_HELPER)
    switched = loaded.ok("%jax_nbhelp hints")
    assert "classroom mode" in switched.stdout
    failed = loaded.run(FAILING)
    bundle = _bundle(failed)
    text, card, data = bundle["text/plain"], bundle["text/html"], bundle[MIME_TYPE]
    validate_bundle(data)
    assert data["fixes"] == []
    assert data["hidden_fixes"] == len(current().last.fixes) >= 2
    assert data["code"] == "JNH101"
    assert data["location"] is not None
    for shown in (text, card):
        assert "ready but hidden" in shown
        assert "No mechanical fix" not in shown
        assert "Run as one program" not in shown
    assert "Fixes (run one" not in text
    assert "Why:" in text
    # The student cannot apply or preview a hidden fix by number...
    refused = loaded.ok("%jax_nbhelp fix 1")
    assert "classroom mode keeps the fixes back" in refused.stdout
    assert current().last_result is None
    assert "keeps the fixes back" in loaded.ok("%jax_nbhelp preview 1").stdout
    assert "ready but hidden" in loaded.ok("%jax_nbhelp").stdout
    # ...until they ask: the diagnosis comes back with its fixes, and one applies.
    revealed = loaded.ok("%jax_nbhelp fixes")
    again = _bundle(revealed)[MIME_TYPE]
    assert [fix["label"] for fix in again["fixes"]] == [f.label for f in current().last.fixes]
    assert again["hidden_fixes"] == 0
    applied = loaded.ok("%jax_nbhelp fix 1")
    assert "Fixed" in applied.stdout
    assert float(loaded["out"].sum()) == 3.0 * 8 * 128


def test_hints_on_an_error_without_fixes_still_says_so(loaded: Notebook) -> None:
    loaded.ok("%jax_nbhelp hints")
    # a Python while loop on a traced value that prints in its body: explained, with no
    # mechanical fix (lax.while_loop would print once, not once per step)
    loaded.ok("@jax.jit\ndef f(x):\n    while x > 0:\n        print(x)\n        x = x - 1\n"
              "    return x")
    text = _bundle(loaded.run("f(1.0)"))["text/plain"]
    assert "JNH301" in text
    assert "ready but hidden" not in text
    loaded.ok("%jax_nbhelp fixes")


def test_unload_forgets_the_mode(nb: Notebook) -> None:
    nb.ok("%load_ext jax_nbhelp")
    nb.ok("%jax_nbhelp hints")
    nb.ok("%unload_ext jax_nbhelp")
    nb.ok("%load_ext jax_nbhelp")
    from jax_nbhelp.core.session import current

    assert current().show_fixes


def _profile(tmp_path: Path, filename: str) -> dict[str, str]:
    home = tmp_path / "ipython"
    (home / "profile_default").mkdir(parents=True)
    (home / "profile_default" / filename).write_text("c.JaxNbhelp.show_fixes = False\n")
    return {**os.environ, "IPYTHONDIR": str(home)}


CELLS = [
    "%load_ext jax_nbhelp",
    "import jax, jax.numpy as jnp\n"
    "from jax.experimental import pallas as pl\n"
    "from jax.experimental.pallas import tpu as pltpu",
    SCALED_HELPER,
    FAILING,
]


@pytest.mark.parametrize("how", ["profile", "command line"])
def test_terminal_ipython_reads_the_setting(tmp_path: Path, how: str) -> None:
    # Typed at the prompt: a blank line ends each block, as a user ends one.
    typed = "\n\n".join([*CELLS, "%jax_nbhelp fixes", "%jax_nbhelp fix 1",
                          "print('numbers:', float(out.sum()))", "exit"]) + "\n"
    env = _profile(tmp_path, "ipython_config.py") if how == "profile" else dict(os.environ)
    args = [] if how == "profile" else ["--JaxNbhelp.show_fixes=False"]
    proc = subprocess.run([sys.executable, "-m", "IPython", "--colors=NoColor",
                           "--simple-prompt", *args], input=typed, capture_output=True,
                          text=True, env=env, timeout=600, cwd=tmp_path)
    out = proc.stdout + proc.stderr
    first, _, after = out.partition("jax_nbhelp: fixes are shown.")
    assert "ready but hidden" in first, out[-4000:]
    assert "Run as one program" not in first
    assert "Run as one program" in after
    assert "numbers: 3072.0" in after


@pytest.mark.kernel
def test_a_kernel_configured_for_class_hides_fixes_until_asked(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in
                [*CELLS, "%jax_nbhelp fixes", "%jax_nbhelp fix 2",
                 "print('numbers:', float(out.sum()), bool((out == 3).all()))"]]
    env = _profile(tmp_path, "ipython_kernel_config.py")
    previous = os.environ.get("IPYTHONDIR")
    os.environ["IPYTHONDIR"] = env["IPYTHONDIR"]  # the kernel inherits this process's env
    try:
        NotebookClient(nb, timeout=300, startup_timeout=300, kernel_name="python3",
                       allow_errors=True).execute()
    finally:
        if previous is None:
            os.environ.pop("IPYTHONDIR", None)
        else:
            os.environ["IPYTHONDIR"] = previous
    hidden = _bundle(nb.cells[3])[MIME_TYPE]
    assert hidden["fixes"] == []
    assert hidden["hidden_fixes"] >= 2
    shown = _bundle(nb.cells[4])[MIME_TYPE]
    assert len(shown["fixes"]) == hidden["hidden_fixes"]
    printed = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
    assert "numbers: 3072.0 True" in printed, textwrap.shorten(str(nb.cells[5].outputs), 3000)
