"""Whether JAX raised an error: the gate every diagnosis is behind.

A message is text anyone can write: a user's ``ValueError("Only interpret mode is supported
on CPU backend.")`` is not JAX's. An error is JAX's when an exception of its chain has a
type defined by jax or jaxlib, or was raised from a frame inside jax, jaxlib or
jax_nbhelp's own re-run machinery, or by native code (jaxlib's C++, which leaves no Python
frame: ``jit``'s argument checks) called from the innermost frame: that frame was calling,
not executing a ``raise``. An import of a jax module or name that the installed JAX
lacks counts too when Python's import system raised it (``from jax.config import
config``), and so does a jax module's missing attribute when Python's attribute lookup
raised it (``pl.load`` where ``pl`` has no module ``__getattr__``): what they say is a fact
about the installed JAX. One error of the user's own counts as well: a notebook's ``assert``
on JAX's device count or kind (``assert jax.device_count() > 1, ...``), whose message is the
notebook's but whose cause is the runtime JAX runs on (``device_guard``). Everything here
avoids calling
into the exception (``str``, ``repr``, attributes a user class may override): a broken user
exception is not JAX's, and jax_nbhelp says nothing about it.
"""

from __future__ import annotations

import ast
import dis
import linecache
import os
import sys
from collections.abc import Mapping, Sequence
from functools import lru_cache
from types import BuiltinFunctionType, FunctionType, ModuleType, TracebackType
from typing import Any

from jax_nbhelp.diagnosis import device_guard

_MAX_LINKS = 16
_PACKAGES = ("jax", "jaxlib")


@lru_cache(maxsize=4096)
def _real(path: str) -> str:
    """``os.path.realpath``, cached: every error names the same few dozen of JAX's files,
    and resolving a path costs a system call per folder in it."""
    return os.path.realpath(path)


def jax_roots() -> tuple[str, ...]:
    """The folders of the jax and jaxlib packages (only those already imported)."""
    paths = tuple(getattr(sys.modules.get(name), "__file__", None) for name in _PACKAGES)
    return _roots(tuple(path for path in paths if isinstance(path, str)))


@lru_cache(maxsize=8)
def _roots(paths: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(os.path.dirname(_real(path)) + os.sep for path in (*paths, __file__))


def _innermost(tb: TracebackType | None) -> TracebackType | None:
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb


_IMPORTS = frozenset({"IMPORT_NAME", "IMPORT_FROM"})


def _instruction(tb: TracebackType) -> str | None:
    """The name of the instruction the frame was at when it raised (None: unknown)."""
    try:
        for instruction in dis.get_instructions(tb.tb_frame.f_code):
            if instruction.offset == tb.tb_lasti:
                return instruction.opname
            if instruction.offset > tb.tb_lasti:
                break
    except Exception:  # an odd code object: no evidence either way
        return None
    return None


def _called_native_code(tb: TracebackType) -> bool:
    """Whether the frame was in a call (the error came from the callee) rather than a raise
    statement of its own (a user's ``raise ValueError(...)``)."""
    return (_instruction(tb) or "").startswith("CALL")


_LOOKUPS = frozenset({"LOAD_ATTR", "LOAD_METHOD"})


def _jax_module_lacks(exc: BaseException, tb: TracebackType | None) -> bool:
    """A JAX module without the attribute asked for, raised by Python's own attribute
    lookup (a module with no ``__getattr__``: ``pl.load`` on jax 0.9.2): the frame was at
    an attribute lookup, and Python recorded the module as ``obj``. The exact type only, as
    for imports."""
    if type(exc) is not AttributeError or tb is None:
        return False
    owner = getattr(exc, "obj", None)  # AttributeError's own slot (Python 3.10+)
    name = owner.__dict__.get("__name__") if isinstance(owner, ModuleType) else None
    # The module first: disassembling the frame is the costly part, and most
    # AttributeErrors are not about a jax module at all.
    return (isinstance(name, str) and name.split(".", 1)[0] in _PACKAGES
            and _instruction(tb) in _LOOKUPS)


def _device_guard_failed(exc: BaseException, tb: TracebackType | None) -> bool:
    """A user's ``assert`` on JAX's devices (the exact type only: an assert statement raises
    AssertionError itself)."""
    if type(exc) is not AssertionError or tb is None:
        return False
    code = tb.tb_frame.f_code
    return device_guard.read_frame(code.co_filename, tb.tb_lineno) is not None


def _jax_import_failed(exc: BaseException, tb: TracebackType | None) -> bool:
    """An import of a jax module or name the installed JAX lacks, raised by Python's import
    system (its frames, or the import instruction the user's frame was at), not a ``raise``.
    The exact types only: a subclass is someone's own class."""
    if type(exc) not in (ImportError, ModuleNotFoundError) or tb is None:
        return False
    name = exc.name  # type: ignore[attr-defined]
    if not isinstance(name, str) or name.split(".", 1)[0] not in _PACKAGES:
        return False
    return (tb.tb_frame.f_code.co_filename.startswith("<frozen importlib")
            or _instruction(tb) in _IMPORTS)


def is_jax_file(filename: str) -> bool:
    """Whether ``filename`` is a file of jax, jaxlib or jax_nbhelp (as a traceback names it)."""
    return (not filename.startswith("<")
            and _real(filename).startswith(jax_roots()))


UNKNOWN = object()


def lookup_callee(func: ast.expr, scopes: Sequence[Mapping[str, Any]]) -> object:
    """The object a call's ``func`` names plainly (``scaled``, ``jnp.sum``), looked up in
    ``scopes`` and then through modules only, never a user object's attributes; ``UNKNOWN``
    when it is not named plainly (``jax.jit(f)(x)``: finding out would mean calling)."""
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.insert(0, func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return UNKNOWN
    for scope in scopes:
        if func.id in scope:
            value = scope[func.id]
            break
    else:
        return UNKNOWN
    for part in parts:
        if not isinstance(value, ModuleType):
            return UNKNOWN
        value = value.__dict__.get(part, UNKNOWN)
    return value


def _callee(tb: TracebackType) -> object:
    """The object the frame was calling, when its call site names it plainly (``scaled(x)``,
    ``jnp.sum(x)``); ``UNKNOWN`` otherwise (``jax.jit(f)(x)``: finding out would mean
    calling). Names are looked up in the frame's dicts and modules only, never through a
    user object's attributes."""
    code = tb.tb_frame.f_code
    try:
        lineno, end_lineno, col, end_col = list(code.co_positions())[tb.tb_lasti // 2]
        if lineno is None or end_lineno is None or col is None or end_col is None:
            return UNKNOWN
        lines = linecache.getlines(code.co_filename)[lineno - 1:end_lineno]
        if not lines:
            return UNKNOWN
        lines[-1] = lines[-1][:end_col]
        lines[0] = lines[0][col:]
        call = ast.parse("".join(lines).strip(), mode="eval").body
    except Exception:
        return UNKNOWN
    if not isinstance(call, ast.Call):
        return UNKNOWN
    frame = tb.tb_frame
    return lookup_callee(call.func, (frame.f_locals, frame.f_globals, frame.f_builtins))


def is_jax_object(value: object) -> bool:
    module: object = type(value).__module__
    if isinstance(value, type):
        module = value.__dict__.get("__module__")
    elif isinstance(value, FunctionType | BuiltinFunctionType):
        module = value.__module__
    return isinstance(module, str) and module.split(".", 1)[0] in _PACKAGES


def _raised_by_native_jax(exc: BaseException, tb: TracebackType | None) -> bool:
    # The interpreter raises these at a call of Python code; that is no sign of jaxlib.
    if isinstance(exc, RecursionError | MemoryError):
        return False
    if tb is None or not _called_native_code(tb) or "jaxlib" not in sys.modules:
        return False
    callee = _callee(tb)
    # A call site that names its callee must name JAX's (``int(...)`` is not); one that
    # does not, such as ``jax.jit(f)(x)``, gets the benefit of the doubt.
    return callee is UNKNOWN or is_jax_object(callee)


def _type_is_jax(exc: BaseException) -> bool:
    for cls in type(exc).__mro__:
        module = cls.__dict__.get("__module__")
        if isinstance(module, str) and module.split(".", 1)[0] in _PACKAGES:
            return True
    return False


def _raised_in(filename: str | None, roots: tuple[str, ...]) -> bool:
    if not filename or filename.startswith("<"):
        return False
    return _real(filename).startswith(roots)


def raised_by_jax(exc: BaseException) -> bool:
    """Whether ``exc`` or an exception it was raised from is JAX's (see the module doc)."""
    if "jax" not in sys.modules:
        return False  # no JAX, no JAX error
    roots = jax_roots()
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < _MAX_LINKS:
        seen.add(id(current))
        innermost = _innermost(current.__traceback__)
        filename = innermost.tb_frame.f_code.co_filename if innermost is not None else None
        if (_type_is_jax(current) or _raised_in(filename, roots)
                or _raised_by_native_jax(current, innermost)
                or _jax_import_failed(current, innermost) or _jax_module_lacks(current, innermost)
                or _device_guard_failed(current, innermost)):
            return True
        cause = current.__cause__
        if cause is None and not current.__suppress_context__:
            cause = current.__context__
        current = cause if isinstance(cause, BaseException) else None
    return False
