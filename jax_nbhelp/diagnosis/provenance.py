"""Whether JAX raised an error: the gate every diagnosis is behind.

A message is text anyone can write: a user's ``ValueError("Only interpret mode is supported
on CPU backend.")`` is not JAX's. An error is JAX's when an exception of its chain has a
type defined by jax or jaxlib, or was raised from a frame inside jax, jaxlib or
jax_nbhelp's own re-run machinery, or in a library JAX's code called (NumPy, opt_einsum),
or by native code (jaxlib's C++, which leaves no Python
frame: ``jit``'s argument checks) called from the innermost frame: that frame was calling,
not executing a ``raise``. An import of a jax module or name that the installed JAX
lacks counts too when Python's import system raised it (``from jax.config import
config``), and so does a jax module's missing attribute when Python's attribute lookup
raised it (``pl.load`` where ``pl`` has no module ``__getattr__``), and so does a JAX
array's missing attribute (``x.unsqueeze(0)`` on a ``jax.Array``), and so does an f-string's
format spec Python applied to one of JAX's tracers (``f"{loss:.3f}"`` under jit), and so
does a JAX array or tracer Python was asked to hash (a dict key: ``counts[x[0]]``), which
JAX's array types refuse by design, and a JAX array Python's ``json`` was asked to write
(the encoder's frame holds it), and an attribute of a JAX array called as PyTorch's method
(``x.size()``, whose int Python refuses to call), and Python's arithmetic on a dict, list or
tuple of JAX arrays (``params - lr * grads``, ``grads`` from ``jax.grad`` of a dict), and a
JAX function's result unpacked into another count of names (``k1, k2, k3 =
jax.random.split(key)``), and an array's attribute asked of a list of JAX arrays
(``losses.mean()``): what they say is a fact about the installed JAX. One
error of the user's own counts as well: a notebook's ``assert`` on JAX's device count or
kind (``assert jax.device_count() > 1, ...``), whose message is the notebook's but whose
cause is the runtime JAX runs on (``device_guard``). Everything here avoids calling into
the exception (``str``, ``repr``, attributes a user class may override): a broken user
exception is not JAX's, and jax_nbhelp says nothing about it.
"""

from __future__ import annotations

import ast
import dis
import linecache
import os
import re
import sys
from collections.abc import Mapping, Sequence
from functools import lru_cache
from types import BuiltinFunctionType, FunctionType, ModuleType, TracebackType
from typing import Any

from jax_nbhelp.diagnosis import device_guard
from jax_nbhelp.diagnosis.line_values import exception_chain
from jax_nbhelp.diagnosis.safe_eval import Evaluator

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


def _jax_array_lacks(exc: BaseException, tb: TracebackType | None) -> bool:
    """An attribute a JAX array lacks, raised by Python's own attribute lookup
    (``x.unsqueeze``): Python recorded the array as ``obj``. The exact type only. (A
    tracer's lookup fails in JAX's own ``__getattr__``, which the frames show.)"""
    if type(exc) is not AttributeError or tb is None:
        return False
    owner = getattr(exc, "obj", None)
    return (type(owner).__name__ == "ArrayImpl" and is_jax_object(owner)
            and _instruction(tb) in _LOOKUPS)


# JAX's ``x.at`` helper objects: an item assignment into one (``x.at[i] = v``) fails in
# Python's own STORE_SUBSCR, with JAX's class named in the message.
_AT_HELPERS = ("'_IndexUpdateHelper' object", "'_IndexUpdateRef' object")


def _stored_into_at_helper(exc: BaseException, tb: TracebackType | None) -> bool:
    """An item assignment into JAX's ``.at`` helper: ``x.at[i] = v``."""
    if type(exc) is not TypeError or tb is None or not str(exc).startswith(_AT_HELPERS):
        return False
    return _instruction(tb) == "STORE_SUBSCR"


_FORMATS = ("FORMAT_VALUE", "FORMAT_WITH_SPEC", "FORMAT_SIMPLE")
_FORMAT_MESSAGE = "unsupported format string passed to "


def _tracer_formatted(exc: BaseException, tb: TracebackType | None) -> bool:
    """An f-string's format spec applied to a JAX tracer (``f"{x:.3f}"`` under jit): Python's
    formatting raised it at the user's format instruction, naming the tracer's class, one
    of JAX's own Tracer classes (looked up in JAX, not taken from the message's word)."""
    if type(exc) is not TypeError or tb is None or _instruction(tb) not in _FORMATS:
        return False
    message = str(exc)
    if not message.startswith(_FORMAT_MESSAGE) or not message.endswith(".__format__"):
        return False
    named = message[len(_FORMAT_MESSAGE):-len(".__format__")]
    if named not in _tracer_class_names():
        return False
    try:  # a value of the frame's is that tracer (its type read, nothing of it called)
        held = list(tb.tb_frame.f_locals.values())
    except Exception:
        return False
    return any(type(value).__name__ == named and _is_jax_type(type(value)) for value in held)


# The instructions at which Python hashes a value: a subscript of a dict (read, stored,
# deleted), a dict or set built or added to, ``in``, and a call (``set(x)``, ``hash(x)``).
_HASHES = frozenset({"BINARY_SUBSCR", "STORE_SUBSCR", "DELETE_SUBSCR", "BUILD_MAP",
                     "BUILD_CONST_KEY_MAP", "BUILD_SET", "MAP_ADD", "SET_ADD", "CONTAINS_OP",
                     "CALL", "CALL_FUNCTION", "CALL_FUNCTION_KW", "CALL_FUNCTION_EX",
                     "CALL_METHOD", "PRECALL"})
_UNHASHABLE = "unhashable type: '"


def _jax_array_hashed(exc: BaseException, tb: TracebackType | None) -> bool:
    """A JAX array or tracer hashed by Python (a dict key, a set member, ``in``): JAX's
    array types set ``__hash__`` to None (``jax/_src/array.py``, ``core.Tracer``), and
    Python's message names the type, which is compared with JAX's own classes (looked up in
    JAX, not taken from the message's word). The frame was at an instruction that hashes,
    not at a ``raise`` of its own."""
    if type(exc) is not TypeError or tb is None:
        return False
    message = str(exc)
    if not message.startswith(_UNHASHABLE) or not message.endswith("'"):
        return False
    named = message[len(_UNHASHABLE):-1]
    if named not in _array_class_names() and named not in _tracer_class_names():
        return False
    return _instruction(tb) in _HASHES


# A JAX array's facts are attributes, not methods: ``x.size()``, ``x.shape(0)``, ``x.T()``
# (PyTorch's spellings) call the int, tuple or array the attribute holds.
ARRAY_ATTRIBUTES = frozenset({"size", "shape", "ndim", "dtype", "T", "mT", "real", "imag",
                              "itemsize", "nbytes", "weak_type", "sharding"})
_NOT_CALLABLE = re.compile(r"^'[\w.]+' object is not callable$")


def _array_attribute_called(exc: BaseException, tb: TracebackType | None) -> bool:
    """An attribute of a JAX array (or tracer) called as a method, Python raising in the
    user's own call: the frame was calling ``x.size(...)`` and ``x``, looked up in the
    frame's dicts only, is one of JAX's arrays. The exact type only."""
    if type(exc) is not TypeError or tb is None or not _NOT_CALLABLE.match(str(exc)):
        return False
    call = _call_at(tb)
    if call is None or not isinstance(call.func, ast.Attribute) \
            or call.func.attr not in ARRAY_ATTRIBUTES:
        return False
    return is_jax_array(lookup_callee(call.func.value, _scopes(tb)))


def is_jax_array(value: object) -> bool:
    """Whether ``value`` is one of JAX's concrete arrays or tracers (told by its class,
    never by anything the object says of itself)."""
    name = type(value).__name__
    return is_jax_object(value) and (name == "ArrayImpl" or name in _tracer_class_names())


# Python's messages for an operator neither operand supports: a dict, list or tuple of
# arrays (what ``jax.grad`` of a dict of parameters returns) has no arithmetic.
NO_OPERATOR = re.compile(
    r"^(unsupported operand type\(s\) for [^:]+: '[\w.]+' and '[\w.]+'"
    r"|bad operand type for unary [-+~]: '[\w.]+'"
    r"|can't multiply sequence by non-int of type '[\w.]+'"
    r"|can only concatenate (list|tuple) \(not \"[\w.]+\"\) to (list|tuple))$")
_OPERATORS = frozenset({"BINARY_OP", "UNARY_NEGATIVE", "UNARY_POSITIVE", "UNARY_INVERT",
                        "BINARY_MULTIPLY", "BINARY_ADD", "BINARY_SUBTRACT",
                        "BINARY_TRUE_DIVIDE", "BINARY_POWER", "INPLACE_ADD",
                        "INPLACE_SUBTRACT", "INPLACE_MULTIPLY", "INPLACE_TRUE_DIVIDE"})
_MAX_LEAVES = 10_000


def pytree_of_arrays(value: object) -> bool:
    """Whether ``value`` is a dict, list or tuple (a named tuple too) whose leaves, nested in
    those containers, are JAX arrays or tracers and plain numbers, at least one an array:
    what ``jax.grad`` returns for a dict of parameters. Only the containers' own items are
    read (exact built-in types; a named tuple's items are its tuple's)."""
    count = 0
    found = False
    stack = [(value, 0)]
    if not _container(value):
        return False
    while stack:
        item, depth = stack.pop()
        count += 1
        if count > _MAX_LEAVES or depth > 8:
            return False
        if _container(item):
            items = dict.values(item) if type(item) is dict else tuple.__iter__(item) \
                if isinstance(item, tuple) else list.__iter__(item)  # type: ignore[arg-type]
            stack.extend((child, depth + 1) for child in items)
        elif is_jax_array(item):
            found = True
        elif type(item) not in (int, float, bool, type(None)):
            return False
    return found


def _container(value: object) -> bool:
    return type(value) in (dict, list, tuple) or (
        isinstance(value, tuple) and isinstance(type(value).__dict__.get("_fields"), tuple))


def operator_operands(node: ast.AST | None) -> tuple[ast.expr, ...]:
    """The operands of the operator at ``node``: a binary or unary operation, or an augmented
    assignment (``params -= lr * grads``)."""
    if isinstance(node, ast.BinOp):
        return node.left, node.right
    if isinstance(node, ast.UnaryOp):
        return (node.operand,)
    if isinstance(node, ast.AugAssign):
        return node.target, node.value
    return ()


def _statement_at(tb: TracebackType) -> ast.AST | None:
    """The expression at the frame's instruction, or the statement there when it is not an
    expression (an augmented assignment)."""
    found = expression_at(tb)
    if found is not None:
        return found
    code = tb.tb_frame.f_code
    try:
        lineno, end_lineno, col, end_col = list(code.co_positions())[tb.tb_lasti // 2]
        if lineno is None or lineno != end_lineno or col is None or end_col is None:
            return None
        line = linecache.getline(code.co_filename, lineno)[col:end_col]
        body = ast.parse(line.strip()).body
        return body[0] if len(body) == 1 else None
    except Exception:
        return None


def _operator_on_pytree(exc: BaseException, tb: TracebackType | None) -> bool:
    """Arithmetic Python refused because an operand is a dict, list or tuple of JAX arrays
    (``params - lr * grads`` with ``grads = jax.grad(loss)(params)``): the frame was at the
    operator, and an operand, read safely in the frame (a name, an attribute of a plain
    object, an item), is such a container. The exact type only."""
    if type(exc) is not TypeError or tb is None or not NO_OPERATOR.match(str(exc)):
        return False
    if _instruction(tb) not in _OPERATORS:
        return False
    evaluate = Evaluator(tb.tb_frame)
    node = _statement_at(tb)
    return any(pytree_of_arrays(evaluate(operand)) for operand in operator_operands(node)) \
        or any(made_by_jax(operand, _scopes(tb))
               for operand in container_operands(str(exc), node))


_OPERAND_TYPES = re.compile(r"^unsupported operand type\(s\) for [^:]+: '(?P<left>[\w.]+)' "
                            r"and '(?P<right>[\w.]+)'$|^bad operand type for unary [-+~]: "
                            r"'(?P<only>[\w.]+)'$")
_CONTAINERS = ("dict", "list", "tuple")


def container_operands(message: str, node: ast.AST | None) -> tuple[ast.expr, ...]:
    """The operands of the operator at ``node`` whose type Python's ``message`` names a
    dict, list or tuple (either operand where it names a sequence without saying which)."""
    operands = operator_operands(node)
    named = _OPERAND_TYPES.match(message)
    if named is None:
        return operands  # "can't multiply sequence ...", "can only concatenate ..."
    types = (named["only"],) if named["only"] else (named["left"], named["right"])
    return tuple(operand for operand, kind in zip(operands, types, strict=False)
                 if kind in _CONTAINERS)


def made_by_jax(node: ast.expr, scopes: Sequence[Mapping[str, Any]]) -> bool:
    """Whether ``node`` calls one of JAX's functions, or what one of them made
    (``jax.grad(loss)(params)``), named plainly: its result, which holds no value until it
    runs, is what JAX returned."""
    if not isinstance(node, ast.Call):
        return False
    callee = lookup_callee(node.func, scopes)
    if callee is UNKNOWN and isinstance(node.func, ast.Call):
        callee = lookup_callee(node.func.func, scopes)
    return callee is not UNKNOWN and is_jax_object(callee)


UNPACKED = re.compile(r"^(not enough|too many) values to unpack \(expected (?P<want>\d+)"
                       r"(, got (?P<got>\d+))?\)$")
_UNPACKS = frozenset({"UNPACK_SEQUENCE", "UNPACK_EX"})


def unpacked_assignment(filename: str, lineno: int, col: int) -> ast.Assign | None:
    """The assignment whose unpacking target starts at ``lineno``, column ``col`` of
    ``filename`` (the statement read from its first line on, up to 20 lines)."""
    lines = linecache.getlines(filename)[lineno - 1:lineno + 19]
    if not lines:
        return None
    indent = len(lines[0]) - len(lines[0].lstrip())
    lines[0] = lines[0].lstrip()  # (the lines after it continue it: inside brackets)
    for count in range(1, len(lines) + 1):
        try:
            body = ast.parse("".join(lines[:count])).body
        except SyntaxError:
            continue
        statement = body[0] if body else None
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], ast.Tuple | ast.List) \
                and statement.targets[0].col_offset + indent == col:
            return statement
        return None
    return None


def _jax_result_unpacked(exc: BaseException, tb: TracebackType | None) -> bool:
    """A JAX function's result unpacked into another count of names (``k1, k2, k3 =
    jax.random.split(key)``): Python raised it at the frame's unpacking, of a value the
    statement's call of JAX's (named plainly) returned. The exact type only."""
    if type(exc) is not ValueError or tb is None or not UNPACKED.match(str(exc)):
        return False
    if _instruction(tb) not in _UNPACKS:
        return False
    code = tb.tb_frame.f_code
    try:
        lineno, _, col, _ = list(code.co_positions())[tb.tb_lasti // 2]
    except Exception:
        return False
    if lineno is None or col is None:
        return False
    statement = unpacked_assignment(code.co_filename, lineno, col)
    return statement is not None and returns_jax_structure(statement.value, _scopes(tb))


# JAX's transforms whose result's structure JAX defines (not the wrapped function's own
# outputs, as jit's and vmap's are)
_STRUCTURING = frozenset({"grad", "value_and_grad"})


def returns_jax_structure(node: ast.expr, scopes: Sequence[Mapping[str, Any]]) -> bool:
    """Whether ``node`` calls a function of JAX's Python code (``jax.random.split``,
    ``jax.lax.scan``), or what ``jax.grad``/``jax.value_and_grad`` made, named plainly: the
    count of what it returns is JAX's contract. A jitted or vmapped function's outputs are
    its author's."""
    if not isinstance(node, ast.Call):
        return False
    callee = lookup_callee(node.func, scopes)
    if callee is not UNKNOWN and is_jax_object(callee) and not isinstance(callee, type):
        # JAX's own function, or one of JAX's functions JAX compiled with jit (jnp.linalg's)
        wrapped = callee if isinstance(callee, FunctionType) \
            else getattr(callee, "__wrapped__", None)
        return isinstance(wrapped, FunctionType) and is_jax_object(wrapped)
    if isinstance(node.func, ast.Call):
        maker = lookup_callee(node.func.func, scopes)
        return isinstance(maker, FunctionType) and is_jax_object(maker) \
            and maker.__name__ in _STRUCTURING
    return False


# What a JAX array has and a list, tuple or dict holding arrays does not: attributes and
# methods of an array's (``xs.shape``, ``xs.mean(0)``).
CONTAINER_LACKS = frozenset({
    "shape", "dtype", "ndim", "size", "T", "mT", "at", "reshape", "sum", "mean", "max",
    "min", "std", "var", "prod", "astype", "transpose", "squeeze", "ravel", "flatten",
    "argmax", "argmin", "cumsum", "clip", "round", "dot", "item", "all", "any",
    "block_until_ready", "swapaxes", "real", "imag", "conj", "nbytes", "itemsize"})


def _container_lacks(exc: BaseException, tb: TracebackType | None) -> bool:
    """An array's attribute asked of a list, tuple or dict of JAX arrays (``xs.mean(0)`` of
    a list the user appended JAX arrays to; ``x.shape`` of a list jit turned into a list of
    tracers): Python's own attribute lookup raised it, and recorded the container as
    ``obj``. The exact type only."""
    if type(exc) is not AttributeError or tb is None:
        return False
    if getattr(exc, "name", None) not in CONTAINER_LACKS:
        return False
    return pytree_of_arrays(getattr(exc, "obj", None)) and _instruction(tb) in _LOOKUPS


_INDEXED = re.compile(r"^(list|tuple) indices must be integers or slices, not tuple$")


def _container_indexed(exc: BaseException, tb: TracebackType | None) -> bool:
    """A list or tuple of JAX arrays indexed as an array (``xs[:, 0]``): Python's subscript
    raised it, and the subscripted value, read safely in the frame, is such a container.
    The exact type only."""
    if type(exc) is not TypeError or tb is None or not _INDEXED.match(str(exc)):
        return False
    node = expression_at(tb)
    return isinstance(node, ast.Subscript) and _instruction(tb) in _SUBSCRIPTS \
        and pytree_of_arrays(Evaluator(tb.tb_frame)(node.value))


_SUBSCRIPTS = frozenset({"BINARY_SUBSCR", "BINARY_OP"})  # (3.14 subscripts with BINARY_OP)


_NOT_JSON = re.compile(r"^Object of type (?P<type>\w+) is not JSON serializable$")


def _jax_array_serialized(exc: BaseException, tb: TracebackType | None) -> bool:
    """A JAX array handed to Python's ``json`` (``json.dumps({"loss": loss})``): the
    encoder's ``default`` raises for every object it cannot write, and the object it held,
    read from json's own frame, is an instance of JAX's array class (not a user's class
    that happens to share its name, nor a user's ``raise`` of the same words)."""
    if type(exc) is not TypeError or tb is None:
        return False
    found = _NOT_JSON.match(str(exc))
    code = tb.tb_frame.f_code
    if found is None or found["type"] not in _array_class_names() or code.co_name != "default" \
            or not code.co_filename.replace("\\", "/").endswith("json/encoder.py"):
        return False
    array = _array_class()
    return array is not None and isinstance(tb.tb_frame.f_locals.get("o"), array)


@lru_cache(maxsize=1)
def _array_class() -> type | None:
    """JAX's concrete array class (None where this JAX has none where it is looked for)."""
    try:
        from jax._src.array import ArrayImpl
    except Exception:
        return None
    return ArrayImpl


@lru_cache(maxsize=1)
def _array_class_names() -> frozenset[str]:
    """How Python names JAX's concrete array class in its messages (``jaxlib._jax.ArrayImpl``
    in this JAX), read from the class itself."""
    array = _array_class()
    if array is None:
        return frozenset()
    return frozenset({array.__name__, f"{array.__module__}.{array.__qualname__}"})


def _is_jax_type(cls: type) -> bool:
    return getattr(cls, "__module__", "").split(".")[0] in _PACKAGES


@lru_cache(maxsize=1)
def _tracer_class_names() -> frozenset[str]:
    try:
        from jax.core import Tracer
    except Exception:
        return frozenset()
    found: set[str] = set()
    pending: list[type] = [Tracer]
    while pending:
        cls = pending.pop()
        if cls.__name__ not in found and _is_jax_type(cls):
            found.add(cls.__name__)
            pending.extend(cls.__subclasses__())
    return frozenset(found)


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


def expression_at(tb: TracebackType) -> ast.expr | None:
    """The expression the frame was running when the error passed through it (its
    instruction's source positions, parsed: a call, an operator, a subscript), or None when
    the line cannot be read."""
    code = tb.tb_frame.f_code
    try:
        lineno, end_lineno, col, end_col = list(code.co_positions())[tb.tb_lasti // 2]
        if lineno is None or end_lineno is None or col is None or end_col is None:
            return None
        lines = linecache.getlines(code.co_filename)[lineno - 1:end_lineno]
        if not lines:
            return None
        lines[-1] = lines[-1][:end_col]
        lines[0] = lines[0][col:]
        return ast.parse("".join(lines).strip(), mode="eval").body
    except Exception:
        return None


def _call_at(tb: TracebackType) -> ast.Call | None:
    """The call expression the frame was at when it raised (None: not a call, or the line
    cannot be read)."""
    call = expression_at(tb)
    return call if isinstance(call, ast.Call) else None


def _scopes(tb: TracebackType) -> tuple[Mapping[str, Any], ...]:
    frame = tb.tb_frame
    return frame.f_locals, frame.f_globals, frame.f_builtins


def _callee(tb: TracebackType) -> object:
    """The object the frame was calling, when its call site names it plainly (``scaled(x)``,
    ``jnp.sum(x)``); ``UNKNOWN`` otherwise (``jax.jit(f)(x)``: finding out would mean
    calling). Names are looked up in the frame's dicts and modules only, never through a
    user object's attributes."""
    call = _call_at(tb)
    return lookup_callee(call.func, _scopes(tb)) if call is not None else UNKNOWN


def _maker(tb: TracebackType) -> object:
    """For a call of a call's result (``jax.jit(f)(x)``), what made the callee
    (``jax.jit``); ``UNKNOWN`` otherwise or when the line cannot be read."""
    call = _call_at(tb)
    if call is None or not isinstance(call.func, ast.Call):
        return UNKNOWN
    return lookup_callee(call.func.func, _scopes(tb))


def is_jax_object(value: object) -> bool:
    module: object = type(value).__module__
    if isinstance(value, type):
        module = value.__dict__.get("__module__")
    elif isinstance(value, FunctionType | BuiltinFunctionType):
        module = value.__module__
    return isinstance(module, str) and module.split(".", 1)[0] in _PACKAGES


def _raised_by_native_jax(exc: BaseException, tb: TracebackType | None,
                          strictly: bool = False) -> bool:
    # The interpreter raises these at a call of Python code; that is no sign of jaxlib.
    if isinstance(exc, RecursionError | MemoryError):
        return False
    if tb is None or not _called_native_code(tb) or "jaxlib" not in sys.modules:
        return False
    callee = _callee(tb)
    # A call site that names its callee must name JAX's (``int(...)`` is not); one that
    # does not, such as ``jax.jit(f)(x)``, gets the benefit of the doubt, unless
    # ``strictly``: then what made the callee must be JAX's (``jax.jit``).
    if callee is UNKNOWN:
        return not strictly or is_jax_object(_maker(tb))
    return is_jax_object(callee)


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


def _raised_in_a_library_jax_called(tb: TracebackType | None, roots: tuple[str, ...]) -> bool:
    """Whether the innermost frames are a library's (NumPy, opt_einsum, ml_dtypes) that JAX's
    own code called: going outwards from where it raised, the first frame that is JAX's or
    the user's is JAX's. A library the user's code called (``np.arange(3)[5]``, SciPy inside
    a jitted function, NumPy inside a callback) is the user's business."""
    frames = []
    while tb is not None:
        frames.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    from jax_nbhelp.diagnosis.sources import is_user_file

    if not frames or frames[-1].startswith("<") or is_user_file(frames[-1]) or _raised_in(
            frames[-1], roots):
        return False  # raised by the user's code (or by JAX's, which is decided elsewhere)
    for filename in reversed(frames[:-1]):
        if _raised_in(filename, roots):
            return True
        if filename.startswith("<") or is_user_file(filename):
            return False
    return False


# JAX's carriers of a stack, not errors of their own: under JAX's user_context any error,
# the user's own `raise` too, gets one as its cause.
_STACK_CARRIERS = frozenset({"JaxStackTraceBeforeTransformation", "UnfilteredStackTrace"})


# checkify's error for a failed ``checkify.check`` of the user's (its automatic checks, NaN,
# out-of-bounds indexing and division by zero, raise other classes of the same module)
_USER_CHECK = ("jax._src.checkify", "FailedCheckError")


def users_check_failed(exc: BaseException) -> bool:
    """Whether ``exc`` is a failed check of the user's own: a ``checkify.check`` (or
    ``debug_check``) whose condition was false. JAX raises it (``JaxRuntimeError`` from the
    ``FailedCheckError``), but the check and its message are the user's, as a ``raise`` is.
    Only the classes of the chain are read."""
    return any((getattr(type(link), "__module__", None), type(link).__name__) == _USER_CHECK
               for link in exception_chain(exc, _MAX_LINKS))


def raised_by_jax(exc: BaseException, *, strictly: bool = False) -> bool:
    """Whether ``exc`` or an exception it was raised from is JAX's (see the module doc).

    ``strictly``: JAX's own code raised it (for the general view, which has no message of
    its own to match): a cause that only carries JAX's stack does not count, nor does a
    notebook's assert on its devices."""
    if "jax" not in sys.modules:
        return False  # no JAX, no JAX error
    roots = jax_roots()
    for current in exception_chain(exc, _MAX_LINKS):
        innermost = _innermost(current.__traceback__)
        filename = innermost.tb_frame.f_code.co_filename if innermost is not None else None
        carrier = strictly and type(current).__name__ in _STACK_CARRIERS
        if ((_type_is_jax(current) and not carrier) or _raised_in(filename, roots)
                or _raised_by_native_jax(current, innermost, strictly)
                or _jax_import_failed(current, innermost) or _jax_module_lacks(current, innermost)
                or _jax_array_lacks(current, innermost)
                or _stored_into_at_helper(current, innermost)
                or _tracer_formatted(current, innermost)
                or _jax_array_hashed(current, innermost)
                or _jax_array_serialized(current, innermost)
                or _array_attribute_called(current, innermost)
                or _operator_on_pytree(current, innermost)
                or _jax_result_unpacked(current, innermost)
                or _container_lacks(current, innermost)
                or _container_indexed(current, innermost)
                or (not strictly and _device_guard_failed(current, innermost))
                or _raised_in_a_library_jax_called(current.__traceback__, roots)):
            return True
    return False
