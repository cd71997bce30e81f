"""Errors raised inside a host callback, which reach the user only as text.

Python code that JAX runs through a host callback (``jax.pure_callback``, ``io_callback``,
and the Pallas interpreters, which run kernel steps through callbacks) can raise. XLA's
runtime then reports it as::

    JaxRuntimeError: INTERNAL: CpuCallback error calling callback: Traceback (most recent
    call last):
      File "<ipython-input-3-...>", line 4, in kernel
      File ".../jax/_src/pallas/...py", line 88, in ...
    ValueError: Only interpret mode is supported on CPU backend.

The original exception object is gone: only its formatted traceback (without source
lines) is left inside the message. This module reads that text back into ``Link``s, so the
rest of the catalog can diagnose the error inside, located at the user's line.
"""

from __future__ import annotations

import ast
import builtins
import re
import sys
from typing import Any

from jax_nbhelp.diagnosis.context import Frame, Link
from jax_nbhelp.diagnosis.provenance import UNKNOWN, is_jax_file, is_jax_object, lookup_callee
from jax_nbhelp.diagnosis.sources import locate

_TRACEBACK = "Traceback (most recent call last):"
_FRAME_RE = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<function>.+?)\s*$')
# Python's words between the tracebacks of a chain, inside the text of the last one
_CHAIN_NOTES = ("The above exception was the direct cause of the following exception:",
                "During handling of the above exception, another exception occurred:")
_HEADER_RE = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)(?::\s?(?P<message>.*))?$")
_PACKAGES = ("jax", "jaxlib")


def embedded_links(link: Link, shell: Any = None) -> tuple[Link, ...]:
    """The exceptions whose tracebacks ``link``'s message carries, the raised one first.

    Empty unless ``link`` is a JAX run-time error that embeds a Python traceback.
    """
    if not link.is_a("JaxRuntimeError") or _TRACEBACK not in link.message:
        return ()
    found = []
    for block in link.message.split(_TRACEBACK)[1:]:
        parsed = _parse(block, shell)
        if parsed is not None:
            found.append(parsed)
    # Python prints a chain's causes first; the chain of the context lists them last.
    return tuple(reversed(found))


def callback_note(link: Link) -> str:
    """What a diagnosis of the error inside ``link`` adds: where JAX reported it."""
    wrapper = link.message.split(_TRACEBACK)[0].strip()
    return (f"JAX reported this error from inside a host callback (jax.pure_callback, "
            f"io_callback, or a Pallas interpreter's kernel step), as "
            f"{link.type_name}: {wrapper.rstrip(':')} ...; what is explained here is the "
            f"error inside it.")


def raised_by_jax(link: Link, shell: Any = None) -> bool:
    """Whether the embedded exception is JAX's (the rule of ``provenance``, read from text).

    Its type is JAX's, or its innermost frame is in JAX, or that frame is a user line that
    raised nothing itself but called a function of JAX's (jit's C++ argument checks leave no
    frame). The callback ran user code too: a user's own exception in it is not JAX's.
    """
    if link.module.split(".")[0] in _PACKAGES:
        return True
    if not link.frames or link.is_a("RecursionError") or link.is_a("MemoryError"):
        return False
    innermost = link.frames[-1]
    if is_jax_file(innermost.filename):
        return True
    return innermost.is_user and _calls_jax(innermost.line, shell)


def _calls_jax(line: str, shell: Any) -> bool:
    """Whether a line that raised (with no frame below it) called JAX: it holds no ``raise``,
    and a function it calls by name is JAX's, or one is named too loosely to look up."""
    try:
        tree = ast.parse(line.strip())
    except SyntaxError:
        return False
    if any(isinstance(node, ast.Raise) for node in ast.walk(tree)):
        return False
    namespace = getattr(shell, "user_ns", None)
    scopes = (namespace if isinstance(namespace, dict) else {}, builtins.__dict__)
    found = [lookup_callee(node.func, scopes)
             for node in ast.walk(tree) if isinstance(node, ast.Call)]
    return any(value is UNKNOWN or is_jax_object(value) for value in found)


def _parse(block: str, shell: Any) -> Link | None:
    lines = block.splitlines()
    frames: list[Frame] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        match = _FRAME_RE.match(line)
        if match:
            frames.append(_frame(match, shell))
        elif line.strip() and not line[:1].isspace():
            break  # the first unindented line after the frames names the exception
        index += 1
    if index >= len(lines):
        return None
    header = _HEADER_RE.match(lines[index].strip())
    if header is None:
        return None
    message_lines = [header.group("message") or "", *lines[index + 1:]]
    message = "\n".join(message_lines)
    for note in _CHAIN_NOTES:
        message = message.split(note)[0]
    qualified = header.group("type")
    cls = _resolve(qualified)
    module, _, name = qualified.rpartition(".")
    return Link(
        type_name=name,
        module=cls.__module__ if cls is not None else (module or "builtins"),
        message=message.strip(),
        frames=tuple(frames),
        mro=tuple(base.__name__ for base in cls.__mro__) if cls is not None else (name,),
    )


def _frame(match: re.Match[str], shell: Any) -> Frame:
    filename, lineno, function = match["file"], int(match["line"]), match["function"]
    location = locate(filename, lineno, function, shell)
    return Frame(filename=filename, lineno=lineno, function=function,
                 line=location.line.strip() if location is not None else "",
                 location=location)


def _resolve(qualified: str) -> type | None:
    """The exception class a traceback names, from modules already imported (never imports)."""
    module_name, _, name = qualified.rpartition(".")
    owner = sys.modules.get(module_name) if module_name else builtins
    cls = getattr(owner, name, None) if owner is not None else None
    return cls if isinstance(cls, type) and issubclass(cls, BaseException) else None
