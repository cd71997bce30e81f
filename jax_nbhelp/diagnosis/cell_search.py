"""Find code in the notebook's cells when no traceback names it.

Some errors carry no frame of the user's code: a failure inside a kernel interpreter's
callback arrives as text (``JaxRuntimeError: INTERNAL: CpuCallback error ...``). The cells
the user ran are still in IPython's history, so the definitions can be found there, the
newest definition of each name winning, as it does in the user's namespace.
"""

from __future__ import annotations

import ast
import linecache
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from jax_nbhelp.core.model import Location
from jax_nbhelp.core.session import current_shell


@dataclass(frozen=True)
class Cell:
    number: int
    source: str
    filename: str


def _filenames(shell: Any) -> dict[int, str]:
    mapping = getattr(getattr(shell, "compile", None), "_filename_map", None)
    found: dict[int, str] = {}
    if isinstance(mapping, dict):
        for filename, number in mapping.items():
            if isinstance(number, int) and isinstance(filename, str):
                found[number] = filename
    return found


def cells(shell: Any = None) -> list[Cell]:
    """The cells of this session, newest first."""
    shell = shell if shell is not None else current_shell()
    history = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
    if not isinstance(history, list):
        return []
    filenames = _filenames(shell)
    found = []
    for number in range(len(history) - 1, 0, -1):
        source = history[number]
        if isinstance(source, str) and source.strip():
            found.append(Cell(number, source, filenames.get(number, f"<cell In [{number}]>")))
    return found


def _python(source: str) -> ast.Module | None:
    from jax_nbhelp.rewrite import escape_magics

    try:
        code, _ = escape_magics(source)
        return ast.parse(code)
    except Exception:
        return None


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def _is_jit(node: ast.expr) -> bool:
    name = _dotted(node)
    if name == "jit" or name.endswith(".jit"):
        return True
    if isinstance(node, ast.Call):
        if _is_jit(node.func) and not isinstance(node.func, ast.Call):
            return True
        callee = _dotted(node.func)
        if (callee == "partial" or callee.endswith(".partial")) and node.args:
            return _is_jit(node.args[0])
    return False


def _collective_calls(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.Call]:
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and any(
            keyword.arg == "collective_axes" for keyword in node.keywords
        ):
            yield node


@dataclass(frozen=True)
class JittedCollectiveHelper:
    """A ``@jax.jit`` function whose body calls something with ``collective_axes=``."""

    name: str
    location: Location  # the collective call's line


def jitted_collective_helpers(shell: Any = None) -> list[JittedCollectiveHelper]:
    """Such helpers, as last defined in the session (one per name, newest cell first)."""
    seen: set[str] = set()
    found: list[JittedCollectiveHelper] = []
    for cell in cells(shell):
        tree = _python(cell.source)
        if tree is None:
            continue
        defined = [
            node for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        ]
        top_level = {
            node.name for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        for function in defined:
            # A newer cell that redefines the name hides this definition.
            if function.name in seen or any(h.name == function.name for h in found):
                continue
            if not any(_is_jit(decorator) for decorator in function.decorator_list):
                continue
            call = next(_collective_calls(function), None)
            if call is None:
                continue
            lines = cell.source.splitlines()
            line = lines[call.lineno - 1] if 0 < call.lineno <= len(lines) else ""
            if not line:
                line = linecache.getline(cell.filename, call.lineno).rstrip("\n")
            location = Location(
                kind="cell",
                filename=cell.filename,
                lineno=call.lineno,
                line=line,
                function=function.name,
                cell=cell.number,
                source=cell.source,
            )
            found.append(JittedCollectiveHelper(function.name, location))
        seen |= top_level
    return found
