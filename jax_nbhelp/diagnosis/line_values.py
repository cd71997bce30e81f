"""The values a user's line worked on, read from its live frame as shapes and dtypes.

JAX's shape and type errors name shapes (``add got incompatible shapes for broadcasting:
(3,), (4,)``) but not the user's variables; the variables are on the user's line, and their
values (or, under a transformation, their tracers' abstract values) are in that line's frame
while the error is being handled. This module reads them, once, into plain data.

Reading never runs the user's code: only names, attribute reads from an object's own
``__dict__`` (never a property or ``__getattr__`` of a user's class) and item reads on
``dict``, ``list`` and ``tuple`` objects of exactly those types with a literal key. Arrays
and tracers give their shape, dtype and weak type. Values are read for one fact only: a
small NumPy array of 64-bit numbers (``_MAX_EXACT`` elements) is asked, by NumPy, whether
JAX's 32-bit type holds every value exactly (``Value.narrows_exactly``).
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass
from types import FrameType, FunctionType, ModuleType
from typing import Any

from jax_nbhelp.diagnosis.names import dotted


@dataclass(frozen=True)
class Value:
    """One expression of the user's line and what it held."""

    text: str  # as written: "batch", "params['w']", "x.T"
    # "array", "tracer", "numpy", "ref", "python", "list", "tuple", "dict", "none", "other"
    kind: str
    summary: str  # "float32[4, 5]", "list of 3 floats", "dict with keys 'a', 'b'"
    shape: tuple[int, ...] | None = None
    dtype: str | None = None
    weak: bool = False
    # for a tracer, the transformation whose trace made it: "vmap", "grad", "jit" (jit and
    # the bodies of scan, cond, while_loop and kernels all trace to a jaxpr)
    transform: str | None = None
    # a NumPy array of 64-bit numbers: whether its 32-bit form (what JAX makes of it while
    # 64-bit values are off) holds the same values; None where not asked
    narrows_exactly: bool | None = None

    @property
    def is_array(self) -> bool:
        return self.shape is not None and self.kind != "ref"


_MISSING = object()
_MAX_VALUES = 12
_LITERAL_KEYS = (str, int)


def _typename(value: object) -> str:
    return type(value).__name__


def shape_text(shape: tuple[int, ...]) -> str:
    """``[4, 5]`` for a shape, as JAX prints avals (``float32[4,5]``), spaced for reading."""
    return "[" + ", ".join(str(d) for d in shape) + "]"


def _array_facts(value: object) -> tuple[str, tuple[int, ...], str, bool, str | None] | None:
    """(kind, shape, dtype, weak, sharding) of a JAX array, tracer or NumPy array (the
    sharding only where it splits a dimension: ``P(None, 'X')``); None for others."""
    module = type(value).__module__ or ""
    root = module.split(".", 1)[0]
    if root in ("jax", "jaxlib"):
        aval = inspect.getattr_static(value, "aval", _MISSING)
        if aval is _MISSING:
            return None
        try:
            aval = value.aval  # type: ignore[attr-defined]  # JAX's own attribute
            shape = tuple(int(d) for d in aval.shape)
            dtype = str(aval.dtype)
            weak = bool(getattr(aval, "weak_type", False))
            spec = getattr(getattr(aval, "sharding", None), "spec", None)
            sharded = spec is not None and any(part is not None for part in spec)
        except Exception:  # a tracer of an odd kind (a ref, a key of old JAX): no facts
            return None
        kind = ("ref" if type(aval).__name__.startswith("AbstractRef") else
                "tracer" if "Tracer" in type(value).__name__ else "array")
        return kind, shape, dtype, weak, str(spec) if sharded else None
    if root == "numpy" and type(value).__name__ == "ndarray":
        try:
            return ("numpy", tuple(int(d) for d in value.shape),  # type: ignore[attr-defined]
                    str(value.dtype), False, None)  # type: ignore[attr-defined]
        except Exception:
            return None
    return None


def _element_summary(items: list[object]) -> str:
    """``3 floats``, ``2 arrays float32[3]``, ``3 values (int, str)``."""
    count = len(items)
    if not count:
        return "nothing"
    facts = [_array_facts(item) for item in items[:50]]
    if all(f is not None for f in facts):
        described = {f"{f[2]}{shape_text(f[1])}" for f in facts if f is not None}
        noun = "array" if count == 1 else "arrays"
        return f"{count} {noun} " + (described.pop() if len(described) == 1
                                     else "of different shapes")
    kinds = sorted({_typename(item) for item in items[:50]})
    if len(kinds) == 1:
        return f"{count} {kinds[0]}{'' if count == 1 else 's'}"
    return f"{count} values ({', '.join(kinds[:4])})"


_MAX_EXACT = 1 << 16  # elements of a NumPy array whose 32-bit form is compared
_NARROWER = {"f": "float32", "i": "int32", "u": "uint32", "c": "complex64"}


def _narrows_exactly(value: Any) -> bool | None:
    """Whether a NumPy array of 64-bit numbers keeps its values in the 32-bit type JAX
    converts it to (``np.arange(10.0)``: yes; ``np.array([0.1])``: no); None for other
    arrays and for arrays over ``_MAX_EXACT`` elements. NumPy's own methods, on an array of
    exactly NumPy's class."""
    import sys

    numpy = sys.modules.get("numpy")
    dtype = getattr(value, "dtype", None)
    if numpy is None or type(value) is not numpy.ndarray or dtype is None:
        return None
    narrower = _NARROWER.get(dtype.kind)
    if narrower is None or dtype.itemsize != 8 * (2 if dtype.kind == "c" else 1) \
            or value.size > _MAX_EXACT:
        return None
    try:
        with numpy.errstate(all="ignore"):
            back = value.astype(narrower).astype(dtype)
            return bool(numpy.array_equal(back, value, equal_nan=dtype.kind in "fc"))
    except Exception:
        return None


# A tracer's class -> the transformation that made it.
_TRACES = {"BatchTracer": "vmap", "JVPTracer": "grad", "LinearizeTracer": "grad",
           "JaxprTracer": "grad", "DynamicJaxprTracer": "jit", "JitTracer": "jit"}


def tracer_transform(class_name: str) -> str | None:
    """The transformation whose trace makes tracers of this class (``BatchTracer``: vmap)."""
    return _TRACES.get(class_name)


def describe(text: str, value: object) -> Value:
    """What ``value`` is, as plain data (no call into a user's object)."""
    facts = _array_facts(value)
    if facts is not None:
        kind, shape, dtype, weak, sharding = facts
        transform = _TRACES.get(type(value).__name__) if kind == "tracer" else None
        summary = f"{dtype}{shape_text(shape)}" + (" (weakly typed)" if weak else "")
        if sharding is not None:
            summary += f", sharded {sharding}"
        if kind == "numpy":
            summary = f"NumPy {summary}"
            return Value(text, kind, summary, shape, dtype, weak, transform,
                         _narrows_exactly(value))
        if kind == "ref":
            summary = f"an array ref of {summary}"
        elif kind == "tracer":
            summary = f"traced {summary}"
        return Value(text, kind, summary, shape, dtype, weak, transform)
    cls = type(value)
    if value is None:
        return Value(text, "none", "None")
    if cls in (bool, int, float, complex):
        return Value(text, "python", f"Python {cls.__name__}")
    if cls is str:
        return Value(text, "python", "str")
    if cls in (list, tuple):
        return Value(text, cls.__name__, f"{cls.__name__} of "
                     f"{_element_summary(list(value))}")  # type: ignore[call-overload]
    if cls is dict:
        keys = list(value)[:6]  # type: ignore[call-overload]
        shown = ", ".join(repr(k) if type(k) in (str, int) else _typename(k) for k in keys)
        more = ", ..." if len(value) > len(keys) else ""  # type: ignore[arg-type]
        return Value(text, "dict", f"dict with keys {shown}{more}" if keys else "empty dict")
    return Value(text, "other", f"{cls.__name__} object")


# -- reading an expression without running the user's code --------------------------------

def _lookup(name: str, frame: FrameType) -> object:
    for scope in (frame.f_locals, frame.f_globals):
        if name in scope:
            return scope[name]
    return _MISSING


def _attribute(value: object, name: str) -> object:
    """``value.name`` when it is plain data: an instance's own attribute, not a property,
    or JAX's ``.T``/``.shape`` facts are left to the caller."""
    if isinstance(value, ModuleType | type | FunctionType):
        return _MISSING
    try:
        found = inspect.getattr_static(value, name, _MISSING)
    except Exception:
        return _MISSING
    if found is _MISSING or hasattr(type(found), "__get__"):
        return _MISSING  # a method, a property or another descriptor: reading it runs code
    own = getattr(value, "__dict__", None) if not hasattr(type(value), "__getattr__") else None
    if isinstance(own, dict) and name in own:
        return own[name]
    return _MISSING


def _literal_key(node: ast.expr, frame: FrameType) -> object:
    if isinstance(node, ast.Constant) and isinstance(node.value, _LITERAL_KEYS):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(
            node.operand, ast.Constant) and type(node.operand.value) is int:
        return -node.operand.value
    if isinstance(node, ast.Name):
        value = _lookup(node.id, frame)
        if type(value) in _LITERAL_KEYS:
            return value
    return _MISSING


def evaluate(node: ast.expr, frame: FrameType) -> object:
    """The value of a name, attribute or item chain, read without running code; ``_MISSING``
    for anything else. ``x.T`` of an array is given as its shape reversed, never computed."""
    if isinstance(node, ast.Name):
        return _lookup(node.id, frame)
    if isinstance(node, ast.Attribute):
        base = evaluate(node.value, frame)
        if base is _MISSING:
            return _MISSING
        if node.attr in ("T", "mT") and _array_facts(base) is not None:
            return _Transposed(base, node.attr)
        return _attribute(base, node.attr)
    if isinstance(node, ast.Subscript):
        base = evaluate(node.value, frame)
        key = _literal_key(node.slice, frame)
        if base is _MISSING or key is _MISSING:
            return _MISSING
        if type(base) is dict:
            return base.get(key, _MISSING)
        if type(base) in (list, tuple) and type(key) is int:
            try:
                return base[key]  # type: ignore[index]
            except IndexError:
                return _MISSING
    return _MISSING


@dataclass(frozen=True)
class _Transposed:
    """``x.T`` (or ``x.mT``) of an array, known by its shape alone."""

    base: object
    attr: str


def _describe_node(text: str, value: object) -> Value:
    if isinstance(value, _Transposed):
        facts = _array_facts(value.base)
        assert facts is not None
        kind, shape, dtype, weak, _ = facts
        shape = (tuple(reversed(shape)) if value.attr == "T"
                 else (*shape[:-2], *reversed(shape[-2:])))
        summary = f"{dtype}{shape_text(shape)}" + (" (weakly typed)" if weak else "")
        return Value(text, kind, ("traced " if kind == "tracer" else "") + summary, shape,
                     dtype, weak)
    return describe(text, value)


# -- the line ------------------------------------------------------------------------------

def statement_at(tree: ast.Module, lineno: int) -> ast.stmt | None:
    """The innermost simple statement (not a compound one's header) spanning ``lineno``;
    for a compound statement whose header holds the line (``if x > 0:``), its test."""
    best: ast.stmt | None = None
    for node in ast.walk(tree):
        if (isinstance(node, ast.stmt) and node.lineno <= lineno <= (node.end_lineno or 0)
                and (best is None or node.lineno >= best.lineno)):
            best = node
    return best


def _header(statement: ast.stmt) -> list[ast.AST]:
    """The parts of ``statement`` that are on its own lines (not the nested statements)."""
    nested = {id(child) for field in ("body", "orelse", "finalbody", "handlers")
              for child in getattr(statement, field, []) or []}
    return [child for child in ast.iter_child_nodes(statement) if id(child) not in nested]


def _lambda_body(statement: ast.stmt, frame: FrameType) -> ast.expr | None:
    """The body of the lambda on the statement whose frame ``frame`` is (a lambda's frame
    sees its parameters, which the statement's own frame does not); None for any other
    frame, or where the statement's lambdas cannot be told apart by their parameters."""
    code = frame.f_code
    if code.co_name != "<lambda>":
        return None
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    found = [node for node in ast.walk(statement) if isinstance(node, ast.Lambda)
             and tuple(a.arg for a in (*node.args.posonlyargs, *node.args.args,
                                       *node.args.kwonlyargs)) == names]
    return found[0].body if len(found) == 1 else None


def expressions(statement: ast.stmt) -> list[ast.expr]:
    """The name, attribute and item chains a statement reads, outermost first, in the order
    they are written; a call's function is not a value (``jnp.dot``), its arguments are."""
    found: list[ast.expr] = []
    callee_ids: set[int] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Call):
            callee_ids.add(id(node.func))
            # a method's object is a value (``x.reshape(3, 4)``: x)
            if isinstance(node.func, ast.Attribute):
                visit(node.func.value)
            for argument in (*node.args, *(k.value for k in node.keywords)):
                visit(argument)
            return
        if (isinstance(node, ast.Name | ast.Attribute | ast.Subscript)
                and id(node) not in callee_ids and isinstance(node.ctx, ast.Load)
                and (isinstance(node, ast.Name) or dotted(node) is not None or _chain(node))):
            found.append(node)
            if isinstance(node, ast.Subscript):
                visit(node.slice)
            return
        if isinstance(node, ast.Lambda | ast.FunctionDef | ast.ClassDef):
            return
        for child in ast.iter_child_nodes(node):
            visit(child)

    for part in _header(statement):
        visit(part)
    return found


def _chain(node: ast.AST) -> bool:
    """Whether ``node`` is a chain of names, attributes and subscripts."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return isinstance(node, ast.Name)


def read_line(source: str, lineno: int, frame: FrameType) -> tuple[Value, ...]:
    """The values the statement at ``lineno`` of ``source`` reads in ``frame``, each once,
    in the order written; modules, functions and classes are left out."""
    try:
        tree = _parsed(source)
    except SyntaxError:
        return ()
    statement = statement_at(tree, lineno)
    if statement is None:
        return ()
    values: list[Value] = []
    seen: set[str] = set()
    body = _lambda_body(statement, frame)
    for node in (expressions(ast.Expr(body)) if body is not None else expressions(statement)):
        text = ast.unparse(node)
        if text in seen:
            continue
        seen.add(text)
        try:
            value = evaluate(node, frame)
            base: ast.expr = node
            if value is _MISSING and isinstance(base, ast.Attribute) \
                    and isinstance(base.value, ast.Subscript):
                base = base.value  # ``x[mask].size``: at least what ``x[mask]`` indexes
            while value is _MISSING and isinstance(base, ast.Subscript):
                base = base.value  # ``table[i]`` with a traced i: at least ``table``
                text = ast.unparse(base)
                value = evaluate(base, frame) if text not in seen else _MISSING
                seen.add(text)
        except Exception:  # reading must never hide the user's error
            continue
        if value is _MISSING or (callable(value) and not _array_facts(value)) or isinstance(
                value, ModuleType | type):
            continue
        values.append(_describe_node(text, value))
        if len(values) >= _MAX_VALUES:
            break
    return tuple(values)


_PARSED: dict[str, tuple[ast.Module, str] | None] = {}


def parsed_source(source: str) -> tuple[ast.Module, str] | None:
    """``source`` (a cell's, or a file's as ``sources.file_source`` gives it) parsed with
    IPython's lines hidden, and the code that was parsed; None where it does not parse.
    Kept for the session's recent sources: every entry asks for the same few, and a tree
    is never changed by its readers."""
    if source in _PARSED:
        return _PARSED[source]
    from jax_nbhelp.rewrite.magics import escape_magics

    found: tuple[ast.Module, str] | None
    try:
        # plain Python (every file, most cells) needs no escaping, which tokenizes it all
        found = (ast.parse(source), source)
    except (SyntaxError, ValueError):
        try:
            code, _ = escape_magics(source)
            found = (ast.parse(code), code)
        except Exception:  # not Python (a cell of another kernel's language): no tree
            found = None
    if len(_PARSED) > 64:
        _PARSED.clear()
    _PARSED[source] = found
    return found


def _parsed(source: str) -> ast.Module:
    found = parsed_source(source)
    if found is None:
        raise SyntaxError("the source does not parse")
    return found[0]


def exception_chain(exc: BaseException | None, limit: int = 16) -> list[BaseException]:
    """``exc`` and what it was raised from, in order: each one's ``__cause__``, else its
    unsuppressed ``__context__`` (at most ``limit``, cycles cut)."""
    chain: list[BaseException] = []
    seen: set[int] = set()
    current = exc
    while current is not None and id(current) not in seen and len(chain) < limit:
        seen.add(id(current))
        chain.append(current)
        if current.__cause__ is not None:
            current = current.__cause__
        elif not current.__suppress_context__:
            current = current.__context__
        else:
            current = None
    return chain


def frames_of(exc: BaseException | None) -> list[tuple[BaseException, list[FrameType]]]:
    """Each exception of the chain (as ``build_context`` walks it) with its frames."""
    import traceback

    return [(link, [frame for frame, _ in traceback.walk_tb(link.__traceback__)])
            for link in exception_chain(exc)]


def instance_fields(value: object) -> dict[str, Value] | None:
    """The attributes an object holds in its own ``__dict__``, described (None when it has
    none: a slotted class, or an object of a library's type). Reading ``__dict__`` through
    ``object.__getattribute__`` runs none of the class's code."""
    module = type(value).__module__ or ""
    if module.split(".", 1)[0] in ("builtins", "jax", "jaxlib", "numpy"):
        return None
    try:
        own = object.__getattribute__(value, "__dict__")
    except Exception:
        return None
    if type(own) is not dict:
        return None
    return {name: describe(name, field) for name, field in list(own.items())
            if isinstance(name, str)}
