"""The concrete values behind a traced expression of the user's: the numbers ``row[0]`` takes
inside a scanned step, read from the array the scan goes over, which the jitted function was
given by a line of the user's that still holds it.

Inside ``jit``, ``scan`` or ``vmap``, a value of the user's is a tracer: what it holds cannot
be read there. But it came from somewhere: a parameter of the function is what the calling
line passed (the user frame before it, whose current line is the call), and the calling line
still holds that argument's concrete value where the transformation began. Followed from
frame to frame:

- ``jax.jit(f)(x)``, ``g(x)`` of a ``g`` jitted from ``f`` (or ``f`` decorated), ``f(x)``: the
  parameter holds the argument;
- ``lax.scan(f, init, xs)``: ``f``'s second parameter holds each row of ``xs`` in turn;
- ``jax.vmap(f)(x)`` (the default ``in_axes``): ``f``'s parameters hold each row of theirs;
- ``lax.fori_loop(lower, upper, body, init)``: ``body``'s first parameter holds each integer
  from ``lower`` up to ``upper``.

The expression is then evaluated, once for each row, on NumPy copies of the arrays found:
names, number constants, subscripts by integers and slices, arithmetic. Nothing of the
user's runs: the functions are told apart by their code objects, the calls read from the
source, and a value is read only from JAX's and NumPy's own array types, under a size budget.
Where any step is not one of these, nothing is claimed.
"""

from __future__ import annotations

import ast
import operator
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import CodeType, ModuleType
from typing import Any

from jax_nbhelp.catalog import _tracing
from jax_nbhelp.core.model import Location
from jax_nbhelp.diagnosis.context import ErrorContext, Frame
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.diagnosis.safe_eval import CANNOT, Evaluator, library_type

_MAX_ELEMENTS = 1 << 16  # of any array read
_MAX_ROWS = 4096  # rows an expression is evaluated for
_MAX_DEPTH = 6  # calls followed outwards

_ARITHMETIC: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
}


@dataclass(frozen=True)
class Behind:
    """Every value an expression takes, and where they were read."""

    values: Any  # a NumPy array: the expression's values, each row's flattened after another
    source: str  # the concrete expression they came from (``data``)
    location: Location  # the line that holds it


@dataclass(frozen=True)
class _Found:
    value: Any  # concrete: a NumPy array or a Python number
    each: bool  # the parameter holds each row of ``value`` in turn
    source: str
    location: Location


def values_behind(ctx: ErrorContext, location: Location, node: ast.expr) -> Behind | None:
    """The values ``node`` (an expression on the user's line at ``location``) takes, read
    from the concrete arrays it came from; None where they cannot be read."""
    numpy = sys.modules.get("numpy")
    frames = ctx.top.user_frames
    index = next((i for i in range(len(frames) - 1, -1, -1)
                  if frames[i].location == location), None)
    if numpy is None or index is None:
        return None
    try:
        found = _names(ctx, frames, index, node, 0)
        if found is None:
            return None
        fixed = {name: f.value for name, f in found.items() if not f.each}
        rows = {name: f.value for name, f in found.items() if f.each}
        origin = next((f for f in found.values() if f.each), None) or next(
            (f for f in found.values() if f.source), None)
        if origin is None:
            return None
        lengths = {len(value) for value in rows.values()}
        if len(lengths) > 1 or (lengths and lengths.pop() > _MAX_ROWS):
            return None
        count = len(next(iter(rows.values()))) if rows else 1
        parts = []
        for row in range(count):
            value = _numeric(node, {**fixed, **{n: v[row] for n, v in rows.items()}}, numpy)
            if value is CANNOT:
                return None
            parts.append(numpy.ravel(numpy.asarray(value)))
        return Behind(numpy.concatenate(parts) if parts else numpy.zeros(0), origin.source,
                      origin.location)
    except Exception:  # an odd value: nothing is claimed, never an error of ours
        return None


def _names(ctx: ErrorContext, frames: Sequence[Frame], index: int, node: ast.expr,
           depth: int) -> dict[str, _Found] | None:
    """What each name ``node`` reads holds, concrete, in the frame ``frames[index]``."""
    place = frames[index].location
    live = ctx.live_frame_of(frames[index])
    if live is None or place is None:
        return None
    found: dict[str, _Found] = {}
    for name in {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}:
        value = live.f_locals.get(name, live.f_globals.get(name, CANNOT))
        concrete = _concrete(value)
        if concrete is not CANNOT:
            found[name] = _Found(concrete, False, "", place)
            continue
        if not traced(value) or depth >= _MAX_DEPTH:
            return None
        passed = _passed(ctx, frames, index, live.f_code, name, depth)
        if passed is None:
            return None
        found[name] = passed
    return found


def _passed(ctx: ErrorContext, frames: Sequence[Frame], index: int, code: CodeType,
            name: str, depth: int) -> _Found | None:
    """What the caller's line passed for the parameter ``name`` of the function whose code
    is ``code``: its concrete value, or each of its rows."""
    parameters = code.co_varnames[:code.co_argcount]
    if name not in parameters or index == 0:
        return None
    position = parameters.index(name)
    caller = frames[index - 1].location
    live = ctx.live_frame_of(frames[index - 1])
    parsed = _tracing.parse(caller.source) if caller is not None else None
    if caller is None or live is None or parsed is None:
        return None
    evaluate = Evaluator(live)
    for call in ast.walk(parsed[0]):
        if not isinstance(call, ast.Call) or not (
                call.lineno <= caller.lineno <= (call.end_lineno or call.lineno)):
            continue
        argument, each = _argument(call, code, position, name, evaluate)
        if argument is None:
            continue
        if isinstance(argument, _Range):
            return _Found(argument.values, True, argument.text, caller)
        numpy = sys.modules.get("numpy")
        if numpy is None:
            return None
        held = _names(ctx, frames, index - 1, argument, depth + 1)
        if held is not None and any(f.each for f in held.values()):
            return None
        value = _numeric(argument, {n: f.value for n, f in held.items()}, numpy) \
            if held is not None else CANNOT
        if value is CANNOT and each:
            # `jnp.arange(3.0)`, any call: what JAX's own scan frame was given for xs
            value, held = _concrete(_jax_local(ctx, frames[index - 1], frames[index],
                                               "scan")), {}
        if value is CANNOT or (each and numpy.ndim(value) == 0):
            return None
        inner = next((f for f in (held or {}).values() if f.source), None)
        source = inner.source if inner is not None else _tracing.segment(caller.source or "",
                                                                         argument)
        return _Found(value, each, source, inner.location if inner is not None else caller)
    return None


def _jax_local(ctx: ErrorContext, outer: Frame, inner: Frame, function: str) -> object:
    """The ``xs`` JAX's own frame of ``function`` (scan) held between the user's frames
    ``outer`` and ``inner``: the value JAX was given, whatever expression gave it (read as
    ``xs``, or as the one leaf of ``xs_flat`` where scan has flattened it)."""
    frames = ctx.top.frames
    positions = [i for i, f in enumerate(frames) if f is outer or f is inner]
    if len(positions) != 2:
        return CANNOT
    for frame in frames[positions[0] + 1:positions[1]]:
        if frame.function == function and not frame.is_user:
            live = ctx.live_frame_of(frame)
            held = live.f_locals if live is not None else {}
            if "xs" in held:
                return held["xs"]
            leaves = held.get("xs_flat")
            if library_type(type(leaves)) and type(leaves) not in (list, tuple):
                leaves = object.__getattribute__(leaves, "__dict__").get("vals")  # a FlatTree
            return leaves[0] if isinstance(leaves, list | tuple) and len(leaves) == 1 \
                else CANNOT
    return CANNOT


@dataclass(frozen=True)
class _Range:
    values: Any
    text: str


def _argument(call: ast.Call, code: CodeType, position: int, name: str,
              evaluate: Evaluator) -> tuple[ast.expr | _Range | None, bool]:
    """The expression ``call`` passes for the parameter ``name`` (at ``position``) of the
    function whose code is ``code``, and whether the parameter holds each of its rows."""
    last = (dotted(call.func) or "").rpartition(".")[2]
    if last in ("scan", "fori_loop"):
        names = ("f", "init", "xs") if last == "scan" else ("lower", "upper", "body_fun",
                                                            "init_val")
        given = _given(call, names)
        body = given.get(names[0] if last == "scan" else "body_fun")
        if body is None or not _names_code(body, evaluate, code):
            return None, False
        if last == "scan":
            return (given.get("xs"), True) if position == 1 else (None, False)
        lower, upper = evaluate(given["lower"]) if "lower" in given else CANNOT, evaluate(
            given["upper"]) if "upper" in given else CANNOT
        numpy = sys.modules.get("numpy")
        if position != 0 or type(lower) is not int or type(upper) is not int \
                or numpy is None or not 0 <= upper - lower <= _MAX_ROWS:
            return None, False
        return _Range(numpy.arange(lower, upper), f"range({lower}, {upper})"), True
    func = call.func
    if isinstance(func, ast.Call) and func.args and not func.keywords \
            and len(func.args) == 1 and _names_code(func.args[0], evaluate, code):
        wrapper = (dotted(func.func) or "").rpartition(".")[2]
        if wrapper not in ("jit", "vmap"):
            return None, False
        return bound(call, position, name), wrapper == "vmap"
    if _is_code(evaluate(func), code):
        return bound(call, position, name), False
    return None, False


def _given(call: ast.Call, names: tuple[str, ...]) -> dict[str, ast.expr]:
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords):
        return {}
    given = dict(zip(names, call.args, strict=False))
    given.update({k.arg: k.value for k in call.keywords if k.arg in names})
    return given


def bound(call: ast.Call, position: int, name: str) -> ast.expr | None:
    """The expression ``call`` passes for the parameter ``name`` at ``position``."""
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    if any(isinstance(a, ast.Starred) for a in call.args[:position + 1]):
        return None
    return call.args[position] if position < len(call.args) else None


def _names_code(node: ast.expr, evaluate: Evaluator, code: CodeType) -> bool:
    """Whether ``node`` is the function whose code is ``code``: a name or attribute that
    holds it, or the lambda written there (its line and parameters)."""
    if isinstance(node, ast.Lambda):
        return code.co_name == "<lambda>" and node.lineno == code.co_firstlineno and [
            a.arg for a in node.args.args] == list(code.co_varnames[:code.co_argcount]) \
            and not node.args.posonlyargs and not node.args.kwonlyargs
    return _is_code(evaluate(node), code)


def _is_code(value: object, code: CodeType) -> bool:
    """Whether ``value`` is the function whose code is ``code``, or JAX's jit of it."""
    return function_code(value) is code


def function_code(value: object) -> CodeType | None:
    """The code of a Python function, or of the function JAX's jit wrapped (read from the
    wrapper's data, never by calling anything); None for anything else."""
    if getattr(type(value), "__name__", "") == "function":
        return object.__getattribute__(value, "__code__")  # type: ignore[no-any-return]
    if library_type(type(value)) and callable(value):
        wrapped = getattr(value, "__wrapped__", None)  # JAX's own wrapper: data
        if getattr(type(wrapped), "__name__", "") == "function":
            return object.__getattribute__(wrapped, "__code__")  # type: ignore[no-any-return]
    return None


def traced(value: object) -> bool:
    """Whether ``value`` is a tracer of JAX's (its class is JAX's own, by name)."""
    return "Tracer" in type(value).__name__ and library_type(type(value))


def holds_tracer(value: object, budget: int = 256) -> bool:
    """Whether ``value`` is a tracer or may hold one: a tracer found in its dicts, lists,
    tuples or an object's own attributes (read from ``vars``, no property runs), or a walk
    past ``budget`` values, where nothing is claimed."""
    todo, seen = [value], 0
    while todo:
        current = todo.pop()
        seen += 1
        if seen > budget or traced(current):
            return True
        if isinstance(current, dict):
            todo += list(current.values())
        elif isinstance(current, list | tuple | set | frozenset):
            todo += list(current)
        elif not isinstance(current, type | ModuleType) and not callable(current) \
                and not library_type(type(current)):
            held = getattr(current, "__dict__", None)
            if isinstance(held, dict):
                todo += list(held.values())
    return False


def _concrete(value: object) -> object:
    """``value`` as a NumPy array or a Python number, or CANNOT (a tracer, a big array, an
    object of a user's class)."""
    if type(value) in (int, float, bool):
        return value
    numpy = sys.modules.get("numpy")
    if numpy is None or not library_type(type(value)) or traced(value):
        return CANNOT
    size = getattr(value, "size", None) if hasattr(type(value), "shape") else None
    if type(size) is not int or size > _MAX_ELEMENTS:
        return CANNOT
    try:
        held = numpy.asarray(value)
    except Exception:
        return CANNOT
    return held if held.dtype.kind in "biuf" else CANNOT


def _numeric(node: ast.expr, names: dict[str, Any], numpy: Any) -> Any:
    """``node`` evaluated on concrete numbers: names, constants, subscripts, arithmetic."""
    if isinstance(node, ast.Constant):
        return node.value if type(node.value) in (int, float, bool) else CANNOT
    if isinstance(node, ast.Name):
        return names.get(node.id, CANNOT)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        operand = _numeric(node.operand, names, numpy)
        return CANNOT if operand is CANNOT else -operand
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = _numeric(node.left, names, numpy), _numeric(node.right, names, numpy)
        if left is CANNOT or right is CANNOT:
            return CANNOT
        with numpy.errstate(all="ignore"):
            return _ARITHMETIC[type(node.op)](left, right)
    if isinstance(node, ast.Subscript):
        base = _numeric(node.value, names, numpy)
        key = _key(node.slice, names, numpy)
        if base is CANNOT or key is CANNOT or not isinstance(base, numpy.ndarray):
            return CANNOT
        try:
            return base[key]
        except (IndexError, TypeError, ValueError):
            return CANNOT
    return CANNOT


def _key(node: ast.expr, names: dict[str, Any], numpy: Any) -> Any:
    if isinstance(node, ast.Tuple):
        parts = [_key(e, names, numpy) for e in node.elts]
        return CANNOT if any(p is CANNOT for p in parts) else tuple(parts)
    if isinstance(node, ast.Slice):
        parts = [_numeric(p, names, numpy) if p is not None else None
                 for p in (node.lower, node.upper, node.step)]
        if any(p is CANNOT or (p is not None and type(p) is not int) for p in parts):
            return CANNOT
        return slice(*parts)
    value = _numeric(node, names, numpy)
    return value if type(value) is int or (isinstance(value, numpy.integer)) else CANNOT
