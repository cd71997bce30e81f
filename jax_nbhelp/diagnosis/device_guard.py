"""A notebook's own guard on its devices: an ``assert`` that reads the device count or kind.

JAX's distributed Pallas notebooks start with ``assert jax.device_count() > 1, "Please run
this notebook with more than one device"`` (or a check for TPU devices). On a one-device
CPU runtime the assert fails with the notebook's own message, which says what is missing
but not how to get it. Read here, from the assert statement itself (and, one step back, a
name it tests that the same cell or file set from a device query), are how many devices it
asks for and whether it insists on a TPU. Any other assert is not a device guard.
"""

from __future__ import annotations

import ast
import linecache
from dataclasses import dataclass

from jax_nbhelp.core.model import Location

# JAX's device queries, called as ``jax.<name>()`` (any alias) or by a name imported from jax.
_QUERIES = frozenset({"device_count", "local_device_count", "devices", "local_devices"})
_BACKEND = "default_backend"


@dataclass(frozen=True)
class Guard:
    needed: int | None  # devices the guard asks for (None: it does not say a number)
    tpu: bool  # it insists on TPU devices
    test: str  # the assert's condition, as written


def _called(node: ast.AST) -> set[str]:
    """The names of the module-level functions ``node`` calls: ``jax.devices()`` and
    ``devices()`` give "devices"; ``obj.attr.devices()`` is not a module's function."""
    found = set()
    for sub in ast.walk(node):
        if not isinstance(sub, ast.Call):
            continue
        func = sub.func
        if isinstance(func, ast.Name):
            found.add(func.id)
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            found.add(func.attr)
    return found


def _reads_devices(node: ast.AST) -> bool:
    return bool(_called(node) & _QUERIES)


def _says_tpu(node: ast.AST) -> bool:
    return any(isinstance(sub, ast.Constant) and isinstance(sub.value, str)
               and "tpu" in sub.value.lower() for sub in ast.walk(node))


def _reads_backend(node: ast.AST) -> bool:
    return _BACKEND in _called(node)


def _needed(test: ast.expr) -> int | None:
    """The smallest count the comparison accepts: ``> 1`` -> 2, ``>= 4`` / ``== 4`` -> 4."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    op, right = test.ops[0], test.comparators[0]
    if not (isinstance(right, ast.Constant) and isinstance(right.value, int)):
        return None
    value = right.value
    if isinstance(op, ast.Gt):
        return value + 1
    if isinstance(op, ast.GtE | ast.Eq):
        return value
    return None


def read(location: Location | None) -> Guard | None:
    """The device guard whose assert raised at ``location``, or None."""
    if location is None:
        return None
    source = location.source
    if source is None:
        source = "".join(linecache.getlines(location.filename))
    return read_source(source, location.lineno, location.line)


def read_frame(filename: str, lineno: int) -> Guard | None:
    """The device guard at a traceback's line (the source from Python's line cache, where
    IPython keeps its cells), or None."""
    lines = linecache.getlines(filename)
    if not 0 < lineno <= len(lines):
        return None
    return read_source("".join(lines), lineno, lines[lineno - 1])


def read_source(source: str, lineno: int, line: str) -> Guard | None:
    """The device guard whose assert covers ``lineno`` of ``source``, or None."""
    # Every user AssertionError comes here (provenance): a text scan rules out almost all of
    # them before the source is parsed.
    if len(source) > 200_000 or not any(name in source for name in (*_QUERIES, _BACKEND)):
        return None
    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython syntax in the cell: only the assert's own line is read
        try:
            tree = ast.parse(line.strip())
        except SyntaxError:
            return None
        lineno = 1
    asserts = [node for node in ast.walk(tree) if isinstance(node, ast.Assert)
               and node.lineno <= lineno <= (node.end_lineno or node.lineno)]
    if not asserts:
        return None
    test = asserts[-1].test
    # One step back: `n = jax.device_count()` then `assert n > 1`.
    queried = {target.id for node in ast.walk(tree) if isinstance(node, ast.Assign)
               and _reads_devices(node.value) for target in node.targets
               if isinstance(target, ast.Name)}
    names = {sub.id for sub in ast.walk(test) if isinstance(sub, ast.Name)}
    reads = _reads_devices(test) or bool(names & queried)
    tpu = _says_tpu(test) and (reads or _reads_backend(test))
    if not reads and not tpu:
        return None
    return Guard(needed=_needed(test) if reads else None, tpu=tpu, test=ast.unparse(test))
