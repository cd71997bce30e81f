"""The README's first screen is the user's, and its sample output is the tool's own: the
everyday example (docs/readme_example.py) run again in a real IPython shell with real JAX
prints what the README shows, durations aside."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _example():
    spec = importlib.util.spec_from_file_location("readme_example",
                                                  ROOT / "docs" / "readme_example.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_example_is_what_the_tool_prints(ipython) -> None:
    example = _example()
    ipython.reset(new_session=True)
    try:
        made = example.block()
    finally:
        if "jax_nbhelp" in ipython.extension_manager.loaded:
            ipython.run_line_magic("unload_ext", "jax_nbhelp")
    shown = example.in_readme((ROOT / "README.md").read_text())
    assert example.same(shown, made), (
        "README.md's example is stale: run `python docs/readme_example.py --write`\n" + made)


def test_the_first_screen_holds_what_a_user_needs() -> None:
    first = "\n".join((ROOT / "README.md").read_text().splitlines()[:41])
    for needed in ("![", 'python -m pip install -e ".[test]"', "python -m pytest",
                   "%load_ext jax_nbhelp", "x[0] = 1.0", "%jax_nbhelp fix 1", "Fixed:",
                   "end of the everyday example"):
        assert needed in first, needed
