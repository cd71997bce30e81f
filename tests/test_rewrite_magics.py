"""Escaping IPython syntax so libcst can rewrite a cell, and putting it back."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jax_nbhelp.rewrite import (
    CannotRewrite,
    escape_magics,
    restore_magics,
    rewrite_cell,
    unified_diff,
)
from jax_nbhelp.rewrite.magics import EscapedLine

P = "__jax_nbhelp_magic__"
ROOT = Path(__file__).resolve().parent.parent


def escaped(source: str) -> str:
    text, magics = escape_magics(source)
    assert text.count("\n") == source.count("\n"), "escaping must keep the line count"
    assert len(text.splitlines()) == len(source.splitlines())
    assert restore_magics(text, magics) == source
    return text


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param("%time f(x)\ny = 1\n", f"{P}(0)\ny = 1\n", id="line-magic"),
        pytest.param(
            "for i in range(3):\n    %timeit g()\n    y = i % 2\n",
            f"for i in range(3):\n    {P}(0)\n    y = i % 2\n",
            id="indented-magic",
        ),
        pytest.param("!ls\nfiles = !ls -la\nx = %env\n", f"{P}(0)\n{P}(1)\n{P}(2)\n", id="shell"),
        pytest.param("jnp.sum?\n?jnp.sum\njnp.sum??\n", f"{P}(0)\n{P}(1)\n{P}(2)\n", id="help"),
        pytest.param("/f a b\n,f a b\n;f a b\n", f"{P}(0)\n{P}(1)\n{P}(2)\n", id="autocall"),
        pytest.param(
            "%time f(a, \\\n   b)\nz = 2", f"{P}(0)\n{P}(0)\nz = 2", id="backslash-continuation"
        ),
        pytest.param("x = \\\n  %env\n", f"{P}(0)\n{P}(0)\n", id="continued-assignment"),
        pytest.param("!echo '''\nx = 1\n", f"{P}(0)\nx = 1\n", id="unbalanced-quote-in-shell"),
        pytest.param(
            "!echo (\nx = 1\n%time y\n", f"{P}(0)\nx = 1\n{P}(1)\n", id="unbalanced-paren-in-shell"
        ),
        pytest.param(
            "if ok:\n\t!ls  # tab-indented\n", f"if ok:\n\t{P}(0)\n", id="tab-indent"
        ),
    ],
)
def test_escape_line_syntax(source: str, expected: str) -> None:
    assert escaped(source) == expected


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("a = b % c\nd = a %b\n", id="modulo"),
        pytest.param("if a != b:\n    pass\n", id="not-equal"),
        pytest.param("s = '%time !ls ?x'\nt = \"jnp.sum?\"\n", id="strings"),
        pytest.param("# %time f(x)\nx = 1  # jnp.sum?\n", id="comments"),
        pytest.param('"""\n%time inside a docstring\n!ls\njnp.sum?\n"""\n', id="triple-quoted"),
        pytest.param("x = (a\n%b)\n", id="modulo-inside-brackets"),
        pytest.param("f(x)?\n", id="help-on-non-name-is-left-alone"),
        pytest.param("", id="empty"),
    ],
)
def test_python_is_left_alone(source: str) -> None:
    assert escaped(source) == source


@pytest.mark.parametrize("magic", ["time", "timeit -n 3", "capture out", "prun -s time"])
def test_python_cell_magic_escapes_only_its_first_line(magic: str) -> None:
    source = f"%%{magic}\nx = f()\n%env A=1\n"
    assert escaped(source) == f"{P}(0)\nx = f()\n{P}(1)\n"


def test_cell_magic_after_blank_lines() -> None:
    # IPython drops leading blank lines before it looks for %%.
    assert escaped("\n\n%%capture out\nx = f()\n") == f"\n\n{P}(0)\nx = f()\n"


def test_cell_magic_help_is_a_help_line() -> None:
    assert escaped("%%timeit?\nx = 1\n") == f"{P}(0)\nx = 1\n"


@pytest.mark.parametrize("magic", ["bash", "writefile out.py", "html", "javascript", "sh"])
def test_non_python_cell_magic_is_refused(magic: str) -> None:
    with pytest.raises(CannotRewrite) as info:
        escape_magics(f"%%{magic}\nls -la\n")
    name = magic.split()[0]
    assert str(info.value) == (
        f"This cell starts with %%{name}, so its body is not Python code and can't be rewritten."
    )


def test_crlf_line_endings_survive() -> None:
    source = "%time f(x)\r\ny = 1\r\n!ls\r\n"
    assert escaped(source) == f"{P}(0)\r\ny = 1\r\n{P}(1)\r\n"


def test_escaped_lines_are_recorded() -> None:
    _, magics = escape_magics("x = 1\n%time f(a, \\\n   b)\n")
    assert magics.lines == (
        EscapedLine(2, ("%time f(a, \\\n", "   b)\n"), (f"{P}(0)\n", f"{P}(0)\n")),
    )
    assert magics.covering(1) is None
    assert magics.covering(3) is magics.lines[0]
    assert bool(magics)
    assert not escape_magics("x = 1\n")[1]


def test_restore_after_lines_moved() -> None:
    text, magics = escape_magics("%time a\nx = 1\n!ls\n")
    moved = text.replace("x = 1\n", "x = (\n    1\n)\n")
    assert restore_magics(moved, magics) == "%time a\nx = (\n    1\n)\n!ls\n"


def test_restore_refuses_when_a_placeholder_is_lost() -> None:
    text, magics = escape_magics("%time a\nx = 1\n")
    with pytest.raises(CannotRewrite) as info:
        restore_magics(text.replace(f"{P}(0)\n", ""), magics)
    assert str(info.value) == (
        "The rewrite lost the IPython line '%time a', so the result was discarded."
    )


def test_rewrite_cell_keeps_magics_exactly() -> None:
    cell = textwrap.dedent(
        """\
        %%time
        %env XLA_FLAGS=--xla_dump_to=/tmp/x   # odd   spacing kept
        for i in range(2):
            %timeit -n1 f(i)
            y = f(i)  # call
        files = !ls *.py
        jnp.sum?
        """
    )
    seen: list[str] = []

    def transform(code: str) -> str:
        seen.append(code)
        return code.replace("y = f(i)", "y = g(i)")

    assert rewrite_cell(cell, transform) == cell.replace("y = f(i)", "y = g(i)")
    assert seen[0].count("\n") == cell.count("\n")
    assert not set("%!?") & set(seen[0])


def test_rewrite_cell_reports_the_unparsable_line() -> None:
    cell = "%time f()\nx = 1\ndef f(:\n    pass\n"
    with pytest.raises(CannotRewrite) as info:
        rewrite_cell(cell, lambda code: code)
    assert str(info.value) == (
        "Line 3 can't be parsed as Python, so the code can't be rewritten automatically: "
        "'def f(:'."
    )


def test_rewrite_cell_quotes_the_original_line_not_the_placeholder() -> None:
    with pytest.raises(CannotRewrite) as info:
        rewrite_cell("f(x)?\n", lambda code: code)
    assert str(info.value).endswith("rewritten automatically: 'f(x)?'.")


def test_unified_diff() -> None:
    old = "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\nf = 6\n"
    new = old.replace("d = 4", "d = 40")
    assert unified_diff(old, new, "In [3]") == (
        "--- In [3]\n"
        "+++ In [3] (fixed)\n"
        "@@ -1,6 +1,6 @@\n"
        " a = 1\n"
        " b = 2\n"
        " c = 3\n"
        "-d = 4\n"
        "+d = 40\n"
        " e = 5\n"
        " f = 6\n"
    )
    assert unified_diff(old, old, "x") == ""


def test_unified_diff_of_cells_without_final_newline_has_no_marker() -> None:
    assert unified_diff("a\nb", "a\nc", "cell") == (
        "--- cell\n+++ cell (fixed)\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
    )


def test_unified_diff_marks_a_final_newline_that_one_side_lacks() -> None:
    assert unified_diff("a\nb\n", "a\nc", "f") == (
        "--- f\n+++ f (fixed)\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n"
    )


def test_importing_rewrite_does_not_import_jax() -> None:
    code = (
        "import sys\n"
        "import jax_nbhelp.rewrite as r\n"
        "from jax_nbhelp.rewrite import collective_axes, diff, magics, wrap_in_jit\n"
        "r.remove_collective_axes('x = f(1, collective_axes=2)\\n', 1)\n"
        "r.wrap_call_in_jit('%time y = f(1)\\n', 1, 'f')\n"
        "assert 'jax' not in sys.modules, sorted(m for m in sys.modules if 'jax.' in m)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
