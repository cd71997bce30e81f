"""The README's everyday example, made by running it: `%load_ext`, an in-place assignment,
the card jax_nbhelp shows, and `%jax_nbhelp fix 1`'s outcome, as a real IPython shell prints
them with the installed jax_nbhelp and JAX.

Run: python docs/readme_example.py [--write]
Prints the block; ``--write`` puts it into README.md between its example markers.
``tests/test_readme.py`` compares the README with a fresh run (durations aside), so the
example cannot go stale.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
START = ("<!-- everyday example: made by docs/readme_example.py, compared by "
         "tests/test_readme.py -->")
END = "<!-- end of the everyday example -->"
CELLS = ("%load_ext jax_nbhelp", "import jax.numpy as jnp\nx = jnp.zeros(3)", "x[0] = 1.0",
         "%jax_nbhelp fix 1")
# what varies from run to run: how long the fix took
_DURATION = re.compile(r"in \d+(\.\d+)? (ms|s|min)\b")


def block() -> str:
    """The example as a shell shows it: each cell, then what it printed and displayed."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    shell = InteractiveShell.instance(colors="nocolor")
    lines = ["```text"]
    for number, cell in enumerate(CELLS, 1):
        prompt = f"In [{number}]: "
        first, *rest = cell.split("\n")
        lines += [prompt + first] + [" " * len(prompt) + line for line in rest]
        with capture_output() as captured:
            result = shell.run_cell(cell, store_history=True)
        error = result.error_in_exec
        if error is not None:  # IPython's traceback, shown whole in a notebook
            lines.append(f"[IPython's traceback, then] {type(error).__name__}: "
                         f"{str(error).split('. ')[0]}.")
        else:
            lines += [line for line in captured.stdout.rstrip("\n").split("\n") if line]
        for output in captured.outputs:
            lines += str(output.data.get("text/plain", "")).split("\n")
    lines.append("```")
    return "\n".join(lines)


def same(a: str, b: str) -> bool:
    """Whether two blocks say the same, durations aside."""
    return _DURATION.sub("in …", a) == _DURATION.sub("in …", b)


def _parts(text: str) -> tuple[str, str, str]:
    """The README before the block (its start marker included), the block, and the rest
    (from its end marker)."""
    before, start, rest = text.partition(START)
    block, end, after = rest.partition(END)
    if not start or not end:
        raise SystemExit(f"README.md lacks the example's markers ({START!r} ... {END!r})")
    return before + start + "\n", block.strip("\n"), end + after


def in_readme(text: str) -> str:
    """The block the README holds now."""
    return _parts(text)[1]


def main() -> None:
    made = block()
    if "--write" in sys.argv[1:]:
        before, _, after = _parts(README.read_text())
        README.write_text(before + made + "\n" + after)
    print(made)


if __name__ == "__main__":
    main()
