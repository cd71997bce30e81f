"""A length that depends on the data, under ``jax.jit``: the size this call's data gives.

``jnp.unique(codes)``, ``jnp.nonzero(mask)``, ``jnp.extract(cond, x)``,
``jax.ops.segment_sum(x, ids)`` and their kin return as many elements as the values ask for,
which jit cannot know when it compiles: each takes a static length instead (``size=``,
``num_segments=``, ``length=``, ``total_repeat_length=``). The length the user wants is, for
the call that failed, the one the function gives on that call's values, and those values
exist: the caller passed concrete arrays to the jitted function. This module computes that
length by calling the same JAX function, eagerly, on the concrete values (never the user's
code), and writes it into the call:

- the function is read from the line's call, resolved in the traced function's live frame
  to one of JAX's own function objects (a table of those that take a static length);
- its arguments are evaluated with the concrete values the caller passed: a parameter of
  the jitted function the body never assigns reads the caller's argument (read safely,
  ``safe_eval``), another name its value where that is already concrete (a global
  threshold); arithmetic, comparisons and calls of ``jax.numpy``'s functions and NumPy's
  ufuncs on those are computed, anything else (a user's function, a method, a property)
  refuses the fix;
- the fix is safe for this call (the same values, the same shape), and says what it fixes:
  a later call whose data has more elements is cut to the length, fewer padded.

Reports: jax-ml/jax#10231 and aesara-devs/aesara#89 (``jnp.unique`` under jit),
google/jaxonnxruntime#29 (``jnp.nonzero``), jax-ml/jax#6350 and ttsim-dev/gettsim#879
(``segment_sum`` without ``num_segments``), jax-ml/jax#38603 (``jnp.extract`` and
``jnp.compress``, whose older releases raise a TracerBoolConversionError).
"""

from __future__ import annotations

import ast
import inspect
import math
import operator
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from types import FrameType
from typing import Any

from jax_nbhelp.catalog import _tracing
from jax_nbhelp.core.model import Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.safe_eval import CANNOT, Evaluator, library_type
from jax_nbhelp.fix.fix_builders import rewrite_fix

_MAX_ELEMENTS = 1_000_000  # a concrete array larger than this is not computed with


@dataclass(frozen=True)
class _Sized:
    """A JAX function whose result's length is data-dependent unless a keyword fixes it."""

    keyword: str  # the keyword that fixes it: size=, num_segments=, ...
    counts: str  # what the length counts, in words


def _length(result: Any) -> int:
    """The length of such a function's result (of its first array, for a tuple)."""
    return int(result[0].shape[0]) if isinstance(result, tuple) else int(result.shape[0])


def _table() -> dict[int, _Sized]:
    """id() of each of JAX's functions whose length a keyword fixes -> how (``jnp.where``
    only in its one-argument form, checked at the call)."""
    jnp = sys.modules.get("jax.numpy")
    ops = sys.modules.get("jax.ops")
    if jnp is None:
        return {}
    distinct = _Sized("size", "distinct values")
    nonzero = _Sized("size", "nonzero entries")
    wanted: list[tuple[Any, str, _Sized]] = [
        (jnp, "unique", distinct),
        (jnp, "nonzero", nonzero), (jnp, "flatnonzero", nonzero), (jnp, "argwhere", nonzero),
        (jnp, "where", nonzero),
        (jnp, "extract", _Sized("size", "selected elements")),
        (jnp, "union1d", distinct), (jnp, "intersect1d", distinct),
        (jnp, "setdiff1d", distinct), (jnp, "setxor1d", distinct),
        (jnp, "bincount", _Sized("length", "bins (one per value up to the largest)")),
        (jnp, "repeat", _Sized("total_repeat_length", "repeated elements")),
    ]
    if ops is not None:
        segments = _Sized("num_segments", "segments (one per id up to the largest)")
        wanted += [(ops, name, segments) for name in
                   ("segment_sum", "segment_prod", "segment_max", "segment_min")]
    # a release without one of them: not offered
    return {id(function): how for module, name, how in wanted
            if (function := getattr(module, name, None)) is not None}


_OPERATORS: dict[type, Callable[..., Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
    ast.BitXor: operator.xor, ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Eq: operator.eq, ast.NotEq: operator.ne,
    ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert,
}


def _concrete(value: object) -> bool:
    """A value of JAX's, NumPy's or Python's own (no tracer, nothing of a user's class)
    small enough to compute with."""
    if type(value) in (int, float, bool, type(None)):
        return True
    if type(value) in (tuple, list, dict):
        items: Any = value.values() if isinstance(value, dict) else value
        return all(_concrete(item) for item in items)
    core = sys.modules.get("jax.core")
    tracer = getattr(core, "Tracer", None)
    if tracer is not None and isinstance(value, tracer):
        return False
    if not library_type(type(value)):
        return False
    size = getattr(value, "size", None)
    return type(size) is int and size <= _MAX_ELEMENTS


def _any_cannot(values: Iterable[object]) -> bool:
    return any(value is CANNOT for value in values)  # never ==: arrays compare elementwise


class _Concrete:
    """Evaluates an argument of the line as it would be with the caller's concrete values.
    ``passed``: the traced function's parameters the body never rebinds -> what the
    caller passed; ``made``: a local the body assigns once, on an earlier line of its own
    (``mask = x > 0``) -> that expression, evaluated the same way; other names are the live
    frame's, where already concrete."""

    def __init__(self, frame: FrameType, passed: dict[str, object],
                 made: dict[str, ast.expr] | None = None) -> None:
        self.names = Evaluator(frame)
        self.passed = passed
        self.made = dict(made or {})
        self.values: dict[str, object] = {}

    def __call__(self, node: ast.AST) -> object:
        try:
            value = self._evaluate(node)
        except Exception:  # a value JAX or NumPy refuses: no length, never an error of ours
            return CANNOT
        return value if value is CANNOT or _concrete(value) else CANNOT

    def _evaluate(self, node: ast.AST) -> object:
        if isinstance(node, ast.Constant) and type(node.value) in (int, float, bool,
                                                                     type(None)):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in self.passed:
                return self.passed[node.id]
            if node.id in self.made:  # each local once: its expression no longer pending
                value = self(self.made.pop(node.id))
                # an immutable value only: a list the body appends to later is not what
                # its assignment made
                self.values[node.id] = CANNOT if type(value) in (list, dict) else value
            if node.id in self.values:
                return self.values[node.id]
            value = self.names(node)
            return value if value is not CANNOT and _concrete(value) else CANNOT
        if isinstance(node, ast.Tuple | ast.List):
            items = [self(item) for item in node.elts]
            return CANNOT if _any_cannot(items) else (
                tuple(items) if isinstance(node, ast.Tuple) else items)
        if isinstance(node, ast.BinOp | ast.UnaryOp | ast.Compare):
            return self._operation(node)
        if isinstance(node, ast.Subscript):
            value, index = self(node.value), self._index(node.slice)
            return CANNOT if _any_cannot((value, index)) else value[index]  # type: ignore[index]
        if isinstance(node, ast.Attribute):
            value = self(node.value)
            return CANNOT if value is CANNOT else _fact(value, node.attr)
        if isinstance(node, ast.Call):
            return self._call(node)
        return CANNOT

    def _index(self, node: ast.AST) -> object:
        if isinstance(node, ast.Slice):
            parts = [self(p) if p is not None else None
                     for p in (node.lower, node.upper, node.step)]
            return CANNOT if _any_cannot(parts) or not all(
                p is None or type(p) is int for p in parts) else slice(*parts)
        if isinstance(node, ast.Tuple):
            items = [self._index(item) for item in node.elts]
            return CANNOT if _any_cannot(items) else tuple(items)
        return self(node)

    def _operation(self, node: ast.BinOp | ast.UnaryOp | ast.Compare) -> object:
        kind: type
        if isinstance(node, ast.Compare):
            if len(node.ops) != 1:
                return CANNOT
            kind, operands = type(node.ops[0]), [node.left, node.comparators[0]]
        elif isinstance(node, ast.BinOp):
            kind, operands = type(node.op), [node.left, node.right]
        else:
            kind, operands = type(node.op), [node.operand]
        function = _OPERATORS.get(kind)
        values = [self(operand) for operand in operands]
        if function is None or _any_cannot(values) or not _bounded(values):
            return CANNOT
        return function(*values)

    def _call(self, node: ast.Call) -> object:
        function = self.names(node.func)
        if not _pure(function) or any(isinstance(a, ast.Starred) for a in node.args) \
                or any(k.arg is None for k in node.keywords):
            return CANNOT
        args = [self(a) for a in node.args]
        kwargs = {k.arg: self(k.value) for k in node.keywords if k.arg is not None}
        if _any_cannot(args) or _any_cannot(kwargs.values()) \
                or not _bounded([*args, *kwargs.values()]):
            return CANNOT
        return function(*args, **kwargs)  # type: ignore[operator]


def _fact(value: object, name: str) -> object:
    if name in ("shape", "ndim", "size", "dtype") and library_type(type(value)) \
            and not isinstance(value, type):
        return getattr(value, name, CANNOT)
    return CANNOT


def _pure(function: object) -> bool:
    """One of ``jax.numpy``'s elementwise functions, reductions and reshapes (as the module
    holds it) or a NumPy ufunc: code without side effects, computing from its arguments
    alone, whose result is no larger than its arguments broadcast together (``_bounded``);
    never a function that makes an array of a size it is given (``jnp.ones(n)``)."""
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(function, numpy.ufunc):
        return True
    jnp = sys.modules.get("jax.numpy")
    name = getattr(function, "__name__", None)
    return (jnp is not None and type(name) is str and callable(function)
            and name in _SAFE_FUNCTIONS and jnp.__dict__.get(name) is function)


# jax.numpy's functions computed here: elementwise, reductions, and reshapes of what they
# are given (none makes an array of a size it is told, none calls a function)
_SAFE_FUNCTIONS = frozenset({
    "abs", "absolute", "sign", "sqrt", "square", "exp", "log", "log1p", "log2", "log10",
    "isnan", "isfinite", "isinf", "logical_and", "logical_or", "logical_not", "logical_xor",
    "greater", "greater_equal", "less", "less_equal", "equal", "not_equal", "isclose",
    "maximum", "minimum", "clip", "round", "floor", "ceil", "trunc", "mod", "remainder",
    "floor_divide", "add", "subtract", "multiply", "divide", "true_divide", "power",
    "negative", "where", "isin", "sum", "any", "all", "max", "min", "mean", "prod",
    "count_nonzero", "ravel", "squeeze", "asarray", "array", "astype", "real", "imag",
    "nan_to_num", "bitwise_and", "bitwise_or", "bitwise_not", "invert",
})


def _bounded(values: list[object]) -> bool:
    """Whether the arrays among ``values`` broadcast together to at most
    ``_MAX_ELEMENTS`` elements (``x[:, None] > y[None, :]`` of two long vectors would not)."""
    numpy = sys.modules.get("numpy")
    shapes = [value.shape for value in values  # type: ignore[attr-defined]
              if library_type(type(value)) and type(getattr(value, "shape", None)) is tuple]
    if numpy is None or not shapes:
        return True
    try:
        return bool(math.prod(numpy.broadcast_shapes(*shapes)) <= _MAX_ELEMENTS)
    except ValueError:
        return False


def _bindings(func: ast.FunctionDef) -> Counter[str]:
    """How many times the function (nested functions included) binds or deletes each
    name."""
    return Counter(node.id for node in ast.walk(func)
                   if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del))


def _rebound(func: ast.FunctionDef) -> set[str]:
    """Names the function's body assigns (a parameter among them no longer holds what the
    caller passed)."""
    declared = {name for node in ast.walk(func) if isinstance(node, ast.Global | ast.Nonlocal)
                for name in node.names}
    return set(_bindings(func)) | declared


def _made_before(func: ast.FunctionDef, lineno: int) -> dict[str, ast.expr]:
    """The locals the function's own statements (not a loop's or a branch's) assign once,
    each to a name alone, on lines before ``lineno``: name -> the expression."""
    stores = _bindings(func)
    return {statement.targets[0].id: statement.value for statement in func.body
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and (statement.end_lineno or lineno) < lineno
            and stores[statement.targets[0].id] == 1}


def _definition(found: _tracing.Traced) -> ast.FunctionDef | None:
    """The ``def`` of the function jit traced."""
    call = found.call
    parsed = _tracing.parse(call.definition.source) \
        if call is not None and call.definition is not None else None
    return (_tracing.find_def(parsed[0], call.origin.function, call.origin.lineno)
            if parsed is not None and call is not None else None)


def _passed(ctx: ErrorContext, found: _tracing.Traced, func: ast.FunctionDef
            ) -> dict[str, object] | None:
    """The traced function's parameters -> the concrete values its caller passed (those
    readable without running anything), or None where the call cannot be read."""
    call = found.call
    if call is None or call.caller is None or call.definition is None:
        return None
    caller = ctx.live_frame(call.caller)
    if caller is None:
        return None
    rebound = _rebound(func)
    evaluate = Evaluator(caller)
    passed: dict[str, object] = {}
    # every parameter (JAX's message names only those the failed value depends on)
    parameters = tuple(a.arg for a in (*func.args.posonlyargs, *func.args.args,
                                       *func.args.kwonlyargs))
    if set(parameters) != {a.parameter for a in call.arguments}:
        call = _tracing.jit_call(ctx, replace(call.origin, arguments=parameters),
                                 call.definition)
    received = _received_by_jit(ctx, call.caller, func) if call.caller is not None else {}
    for argument in call.arguments:
        if argument.node is None or argument.parameter in rebound:
            continue
        value = evaluate(argument.node)
        if value is CANNOT:  # jnp.array([...]) written in the call: as jit received it
            value = received.get(argument.parameter, CANNOT)
        if value is not CANNOT and _concrete(value):
            passed[argument.parameter] = value
    return passed


def _received_by_jit(ctx: ErrorContext, caller: Location, func: ast.FunctionDef
                     ) -> dict[str, object]:
    """The traced function's parameters -> what jit's own entry (``cache_miss`` in
    pjit.py, the first JAX frame after the caller's) received for them, bound by the
    signature of the function it holds, where that is the def ``func``; empty where
    anything cannot be read."""
    frames = ctx.top.frames
    at = [i for i, frame in enumerate(frames) if frame.location == caller]
    entry = next((frame for frame in frames[at[-1] + 1:] if not frame.is_user
                  and frame.function == "cache_miss"), None) if at else None
    live = ctx.live_frame_of(entry) if entry is not None else None
    if live is None or not live.f_code.co_filename.endswith("pjit.py"):
        return {}
    fun, args, kwargs = (live.f_locals.get(n) for n in ("fun", "args", "kwargs"))
    code = getattr(fun, "__code__", None)
    if type(args) is not tuple or type(kwargs) is not dict or code is None \
            or code.co_name != func.name:
        return {}
    try:
        bound = inspect.signature(fun).bind(*args, **kwargs)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return {}
    return dict(bound.arguments)


def _sized_call(frame: FrameType, location: Location
                ) -> tuple[list[tuple[ast.Call, object, _Sized]], str]:
    """The line's calls of JAX's functions with a data-dependent length, not given one
    (each with the function it calls), and the code they are in."""
    table = _table()
    calls, code = _tracing.calls_on(location)
    names = Evaluator(frame)
    jnp = sys.modules.get("jax.numpy")
    found = []
    for call in calls:
        function = names(call.func)
        how = table.get(id(function))
        if how is None or how.keyword in {k.arg for k in call.keywords}:
            continue
        if function is getattr(jnp, "where", None) and (len(call.args) != 1 or call.keywords):
            continue  # jnp.where(c, x, y) has a fixed length
        found.append((call, function, how))
    return found, code


def _raised_inside(ctx: ErrorContext, link: Link, location: Location, name: str) -> bool:
    """Whether the error was raised inside JAX's function ``name``, called from the line
    (a frame of that name among JAX's frames between the line's and the next user frame)."""
    frames = link.frames
    at = [i for i, frame in enumerate(frames) if frame.location == location]
    if not at or not name:
        return False
    for frame in frames[at[-1] + 1:]:
        if frame.is_user:
            return False
        if frame.function == name:
            return True
    return False


def _traced_here(ctx: ErrorContext, found: _tracing.Traced | None
                 ) -> tuple[Location, FrameType, _Concrete] | None:
    """The traced line, its live frame (the function jit traced) and the evaluator of its
    expressions with the concrete values its caller passed; None where any of them cannot
    be read."""
    if found is None or found.location is None or found.origin is None \
            or not found.origin.for_jit:
        return None
    frame = ctx.live_frame(found.location)
    if frame is None or frame.f_code.co_name != found.origin.function:
        return None  # the line runs in another function than the one jit traced
    func = _definition(found)
    passed = _passed(ctx, found, func) if func is not None else None
    if func is None or not passed:
        return None
    same = found.call is not None and found.call.definition is not None \
        and found.call.definition.source == found.location.source
    made = _made_before(func, found.location.lineno) if same else {}
    return found.location, frame, _Concrete(frame, passed, made)


def _caller(found: _tracing.Traced) -> str:
    call = found.call
    return call.caller.label if call is not None and call.caller is not None else "the call"


def explain(ctx: ErrorContext, found: _tracing.Traced | None) -> tuple[str, Fix] | None:
    """The call on the traced line whose result's length depends on the data, given the
    length this call's data gives, with a sentence that says why the call needs it; None
    where anything cannot be read."""
    here = _traced_here(ctx, found)
    if here is None or found is None:
        return None
    location, frame, evaluate = here
    sized, code = _sized_call(frame, location)
    if len(sized) != 1:
        return None
    call, function, how = sized[0]
    if not _raised_inside(ctx, found.link, location, getattr(function, "__name__", "")):
        return None
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords):
        return None
    args = [evaluate(a) for a in call.args]
    kwargs = {k.arg: evaluate(k.value) for k in call.keywords if k.arg is not None}
    if _any_cannot(args) or _any_cannot(kwargs.values()):
        return None
    try:
        length = _length(function(*args, **kwargs))  # type: ignore[operator]
    except Exception:
        return None
    before = _tracing.segment(code, call)
    head = before[:-1].rstrip()
    after = (f"{head}{'' if head.endswith('(') else ' ' if head.endswith(',') else ', '}"
             f"{how.keyword}={length})")
    spelled = _tracing.segment(code, call.func)
    caller = _caller(found)
    noun = how.counts.split(" (")[0]
    sentence = (f" {spelled} returns as many elements as its data has {how.counts}, which "
                "jit cannot know when it compiles; it takes that length as "
                f"`{how.keyword}=`.")
    return sentence, rewrite_fix(
        ctx, location, _tracing.replacing(call, before, after),
        label=f"Pass {how.keyword}={length}",
        summary=(f"Write `{after}` on line {location.lineno}: {spelled} under jit needs its "
                 f"result's length before the data exists, and the values passed at "
                 f"{caller} have {length} {noun}; then re-run."),
        safety=(f"Same results for this call: {length} is the length {spelled} gives for "
                f"these values. A later call whose data has more {noun} would be cut to "
                f"{length}, one with fewer padded."),
        safe=True)


def mask_fix(ctx: ErrorContext, found: _tracing.Traced | None) -> Fix | None:
    """``x[mask]`` on the traced line, its mask concrete for this call: the same selection
    as ``x[jnp.nonzero(mask, size=k)]``, ``k`` the mask's count of True entries."""
    here = _traced_here(ctx, found)
    parsed = _tracing.parse(here[0].source) if here is not None else None
    if here is None or parsed is None or found is None:
        return None
    location, _, evaluate = here
    tree, code = parsed
    numpy = sys.modules.get("numpy")
    masks = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Subscript) or not isinstance(node.ctx, ast.Load) \
                or node.lineno != location.lineno or node.end_lineno != location.lineno:
            continue
        if isinstance(node.value, ast.Attribute) and node.value.attr == "at":
            continue  # x.at[mask]: an update, JNH304's own rewrite
        mask = evaluate(node.slice)
        if numpy is None or mask is CANNOT or getattr(mask, "ndim", 0) < 1 \
                or getattr(getattr(mask, "dtype", None), "kind", "") != "b":
            continue
        masks.append((node, int(numpy.count_nonzero(numpy.asarray(mask)))))
    jnp = ctx.alias("jax.numpy")
    if len(masks) != 1 or jnp is None:
        return None
    node, length = masks[0]
    before = _tracing.segment(code, node.slice)
    after = f"{jnp}.nonzero({before}, size={length})"
    return rewrite_fix(
        ctx, location, _tracing.replacing(node.slice, before, after),
        label=f"Select with {jnp}.nonzero(..., size={length})",
        summary=(f"Write `{after}` for the mask `{before}` on line {location.lineno}: under "
                 "jit the selection needs its length before the data exists, and the values "
                 f"passed at {_caller(found)} select {length} elements; then re-run."),
        safety=(f"Same results for this call: the mask selects {length} elements for these "
                f"values, and {jnp}.nonzero gives their indices in the same order. A later "
                f"call whose mask selects more would be cut to {length}, one with fewer "
                "padded with the first element."),
        safe=True)
