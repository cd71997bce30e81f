"""The JAX functions a line of the user's calls by name, with the parameters they take.

JAX ships Pallas ops (``jax.experimental.pallas.ops``) that build their kernels inside the
call: ``layer_norm(x, w, b)`` takes ``interpret=`` itself, ragged paged attention takes
the block sizes it would otherwise look up for the chip. A fix for those belongs at the
user's call, so this finds the calls on a line whose callee is JAX's, looked up in the
user's namespace the way provenance looks callees up (names and modules only, never a user
object's attributes).
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.diagnosis.provenance import UNKNOWN, is_jax_object, lookup_callee


@dataclass(frozen=True)
class LibraryCall:
    spelled: str  # the dotted name as the line spells it: "gpu_ln.layer_norm"
    name: str  # the function's own name: "layer_norm"
    module: str  # where it is defined: "jax.experimental.pallas.ops.gpu.layer_norm"
    parameters: tuple[str, ...]  # keyword-passable parameters
    passed: tuple[str, ...]  # keywords the call already passes
    starred: bool  # the call passes **kwargs (a keyword may be in there)
    # the shapes of the arguments it was called with, by parameter name, where every
    # argument is a plain name, attribute or constant (and ``*name``): read, never called
    shapes: tuple[tuple[str, tuple[int, ...]], ...] = ()

    def shape(self, parameter: str) -> tuple[int, ...] | None:
        return dict(self.shapes).get(parameter)


def _parameters(function: Any) -> tuple[str, ...] | None:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return tuple(name for name, p in signature.parameters.items() if p.kind in kinds)


def _plain(node: ast.expr) -> bool:
    if isinstance(node, ast.Starred):
        return _plain(node.value)
    if isinstance(node, ast.Attribute):
        return _plain(node.value)
    return isinstance(node, ast.Name | ast.Constant)


def _shapes(call: ast.Call, function: Any,
            namespace: Mapping[str, Any]) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """The argument shapes the call bound, by parameter (evaluating plain names only)."""
    if not all(_plain(a) for a in call.args) or not all(
            k.arg is not None and _plain(k.value) for k in call.keywords):
        return ()
    scope = dict(namespace)
    try:
        args: list[Any] = []
        for arg in call.args:
            value = eval(compile(ast.Expression(
                arg.value if isinstance(arg, ast.Starred) else arg), "<call>", "eval"), scope)
            args += list(value) if isinstance(arg, ast.Starred) else [value]
        kwargs = {k.arg: eval(compile(ast.Expression(k.value), "<call>", "eval"), scope)
                  for k in call.keywords if k.arg is not None}
        bound = inspect.signature(function).bind_partial(*args, **kwargs)
    except Exception:
        return ()
    found = []
    for name, value in bound.arguments.items():
        shape = getattr(value, "shape", None)
        if isinstance(shape, tuple) and all(isinstance(n, int) for n in shape):
            found.append((name, shape))
    return tuple(found)


def calls_on(line: str, namespace: Mapping[str, Any]) -> list[LibraryCall]:
    """JAX functions called by name on ``line`` (one line of code, stripped), outermost
    first; [] when the line does not parse alone."""
    try:
        tree = ast.parse(line.strip())
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        spelled = dotted(node.func)
        if spelled is None:
            continue
        function = lookup_callee(node.func, (namespace,))
        if function is UNKNOWN or not callable(function) or not is_jax_object(function):
            continue
        parameters = _parameters(function)
        if parameters is None:
            continue
        found.append(LibraryCall(
            spelled=spelled, name=getattr(function, "__name__", spelled),
            module=str(getattr(function, "__module__", "")), parameters=parameters,
            passed=tuple(k.arg for k in node.keywords if k.arg is not None),
            starred=any(k.arg is None for k in node.keywords),
            shapes=_shapes(node, function, namespace)))
    return found
