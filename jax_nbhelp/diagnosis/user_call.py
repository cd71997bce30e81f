"""The public JAX function a user's line called, bound to its signature.

For an error raised inside JAX, the user's side of it is one call: the expression of the
user's deepest frame that was running when JAX raised (found from the frame's instruction
positions, the way ``executing`` does). This reads that call as the user wrote it
(``jnp.linalg.cholesky(m)``, ``x.reshape(4)``, ``jax.vmap(f, in_axes=(0, 0))``, ``a @ b``),
finds the function it names without calling anything (names, module attributes, the
methods of JAX's own array types), and binds the call's arguments to the function's
parameters with ``inspect.signature``: each parameter with the user's expression and its
value's summary, the defaults marked as defaults. Where Python's own binding fails (a
keyword the function does not take, too many arguments), that failure is the finding.

Which parameters the failed check read comes from following the check's names up the
frames, from the function that raised to the one the user called: a name that is a
parameter of a frame maps to the argument its caller passed, and so on up (or a free
variable of a closure the user's transform returned); an array argument whose shape JAX's
message or the check's values name is marked too, as derived from it.
"""

from __future__ import annotations

import ast
import difflib
import inspect
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import CodeType, FrameType, FunctionType, TracebackType
from typing import Any

from jax_nbhelp.core.model import BoundArgument, Location
from jax_nbhelp.diagnosis import jax_check
from jax_nbhelp.diagnosis.line_values import describe
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.diagnosis.provenance import expression_at, is_jax_file, is_jax_object
from jax_nbhelp.diagnosis.safe_eval import CANNOT, Evaluator, library_type

_OPERATORS: dict[type[ast.AST], str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
    ast.Mod: "%", ast.Pow: "**", ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|",
    ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>", ast.USub: "-", ast.Invert: "~",
    ast.Not: "not", ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
    ast.GtE: ">=",
}
# JAX's wrappers between a caller and the function it called (jit's cache miss, tracing,
# the traceback filter): their parameters are not the callee's
_WRAPPER_FILES = ("traceback_util.py", "pjit.py", "linear_util.py", "api_util.py",
                  "interpreters/partial_eval.py", "profiler.py", "custom_derivatives.py",
                  "core.py")
_WRAPPER_NAMES = frozenset({"reraise_with_filtered_traceback", "cache_miss", "wrapper",
                            "call_wrapped", "_infer_params", "_trace_for_jit",
                            "trace_to_jaxpr", "__call__"})
# and, besides them, the machinery between a public function and an operation it ran
# (dispatch to a primitive, the operators of arrays): no function a user would name
_MACHINERY_FILES = (*_WRAPPER_FILES, "interpreters/", "lax/utils.py", "dispatch.py",
                    "util.py", "source_info_util.py", "numpy/ufunc_api.py",
                    "numpy/array_methods.py", "numpy/util.py", "config.py")
_MACHINERY_NAMES = _WRAPPER_NAMES | {"op", "deferring_binary_op", "fun", "wrapped", "f",
                                     "bind", "bind_with_trace"}
_DOC_SECTION = re.compile(r"^(\s*)(Args|Arguments|Parameters|Params):?\s*$")
_DOC_PARAMETER = re.compile(r"^(\s*)\**(\w+)(?:\s*\([^)]*\))?\s*:\s*(.*)$")
_MAX_DOC = 300


@dataclass
class UserCall:
    """The user's call JAX raised under, live (never kept: it holds frames)."""

    location: Location | None  # None where no line of the user's called JAX
    frames: list[FrameType]  # the traceback's frames, outermost first
    index: int  # of the user's entry among them
    node: ast.expr  # what that frame was running: a Call, or an operator's expression
    spelled: str  # "jnp.linalg.cholesky", "x.reshape", "jax.vmap", "@"
    function: Any  # the callee (None for an operator)
    operator: str | None  # "@", "+", "[]" where the node is an operator
    api: int | None  # the traceback entry that runs the callee's code, where one does
    method_of: str | None = None  # the object a method was called on: "x"
    # `bind`'s answer, worked out once per call (several rules ask for it)
    bound: tuple[inspect.Signature | None, inspect.BoundArguments | None, str | None] | None = \
        field(default=None, init=False, repr=False, compare=False)

    @property
    def name(self) -> str:
        """The function's own name as the user would say it: ``cholesky``, ``reshape``."""
        return self.operator or self.spelled.rsplit(".", 1)[-1].split("(")[0]

    @property
    def frame(self) -> FrameType:
        return self.frames[self.index]


def find(exc: BaseException, locate: Any) -> UserCall | None:
    """The user's call under which JAX raised ``exc``: the deepest user frame with a JAX
    frame after it (``locate(filename, lineno, function)`` names a user's line, None for
    library code); None when the traceback shows none."""
    tbs = jax_check.entries(exc)
    is_jax = [is_jax_file(tb.tb_frame.f_code.co_filename) for tb in tbs]
    if tbs and not any(is_jax):
        # raised at the user's call itself: Python's binding of a JAX function compiled in
        # C++ (jit's), or that function's native code
        return _at_native_call(tbs, locate)
    for index in range(len(tbs) - 2, -1, -1):
        if not any(is_jax[index + 1:]):
            continue
        code = tbs[index].tb_frame.f_code
        location = locate(code.co_filename, tbs[index].tb_lineno, code.co_name)
        if location is None:
            continue
        node = expression_at(tbs[index])
        call = _read(node, tbs, index, location) if node is not None else None
        return call or _entered(tbs, is_jax, index, location, node)
    # no line of the user's called it (a library, or a test framework, called JAX): the
    # function of JAX's that was called, without a place
    first = is_jax.index(True)
    return _entered(tbs, is_jax, first - 1, None, None) if first > 0 else None


def _entered(tbs: list[TracebackType], is_jax: list[bool], index: int,
             location: Location | None, node: ast.expr | None) -> UserCall:
    """Where the line named no JAX function (``if x:``, ``int(x)`` of an array): the
    function of JAX's it entered, by its qualified name (``ArrayImpl.__bool__``)."""
    entry = next(position for position in range(index + 1, len(tbs)) if is_jax[position])
    code = tbs[entry].tb_frame.f_code
    name = getattr(code, "co_qualname", code.co_name)
    return UserCall(location, [tb.tb_frame for tb in tbs], index,
                    node if node is not None else ast.Name(id=name), name, None, None, entry)


def _at_native_call(tbs: list[TracebackType], locate: Any) -> UserCall | None:
    entry = tbs[-1]
    code = entry.tb_frame.f_code
    location = locate(code.co_filename, entry.tb_lineno, code.co_name)
    node = expression_at(entry) if location is not None else None
    if location is None or not isinstance(node, ast.Call):
        return None
    call = _read(node, tbs, len(tbs) - 1, location)
    return call if call is not None and library_function(call.function) else None


def _read(node: ast.expr, tbs: list[TracebackType], index: int,
          location: Location) -> UserCall | None:
    frames = [tb.tb_frame for tb in tbs]
    operator = _operator(node)
    if operator is not None:
        return UserCall(location, frames, index, node, operator, None, operator, None)
    if not isinstance(node, ast.Call):
        return None
    function, spelled, method_of = _callee(node.func, frames[index])
    if function is None and isinstance(node.func, ast.Attribute):
        function, spelled, method_of = _method_called(node.func, frames, index)
    if function is None or getattr(function, "__module__", None) == "builtins":
        return None  # (``int(x)`` of an array: the function JAX's is its ``__int__``)
    return UserCall(location, frames, index, node, spelled, function, None,
                    _api_entry(function, tbs, index), method_of)


def _operator(node: ast.expr) -> str | None:
    if isinstance(node, ast.BinOp | ast.UnaryOp):
        return _OPERATORS.get(type(node.op))
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        return _OPERATORS.get(type(node.ops[0]))
    if isinstance(node, ast.Subscript):
        return "[]"
    return None


def _callee(func: ast.expr, frame: FrameType) -> tuple[Any, str, str | None]:
    """The function ``func`` names, read without calling anything: (function, as spelled,
    the object of a method call); (None, "", None) when it cannot be known. A call of a
    call (``jax.vmap(f, in_axes=0)(x)``) is the transform's own call."""
    if isinstance(func, ast.Call):
        inner, spelled, method_of = _callee(func.func, frame)
        return (inner, spelled, method_of) if inner is not None and is_jax_object(
            inner) else (None, "", None)
    name = dotted(func)
    if name is None:
        return None, "", None
    spelled = name
    evaluate = Evaluator(frame)
    value = evaluate(func)
    if value is not CANNOT:
        return (value, spelled, None) if callable(value) else (None, "", None)
    if isinstance(func, ast.Attribute):
        # a method of JAX's own arrays (``x.reshape``): its class's function, not a lookup
        # on the object
        owner = evaluate(func.value)
        if owner is not CANNOT and library_type(type(owner)):
            for klass in type(owner).__mro__:
                found = klass.__dict__.get(func.attr)
                if isinstance(found, FunctionType):
                    return found, spelled, ast.unparse(func.value)
    return None, "", None


def _method_called(func: ast.Attribute, frames: list[FrameType],
                   index: int) -> tuple[Any, str, str | None]:
    """A method called on an object the line computes (``jnp.zeros(3).sum(axis=2)``): the
    function that the next frame runs, found on its ``self``'s class (JAX's own types)."""
    if index + 1 >= len(frames):
        return None, "", None
    frame = frames[index + 1]
    owner = frame.f_locals.get("self", CANNOT)
    if owner is CANNOT or not library_type(type(owner)):
        return None, "", None
    for klass in type(owner).__mro__:
        found = klass.__dict__.get(func.attr)
        if isinstance(found, FunctionType) and found.__code__ is frame.f_code:
            return found, ast.unparse(func), ast.unparse(func.value)
    return None, "", None


def _code_of(function: Any) -> CodeType | None:
    try:
        unwrapped = inspect.unwrap(function)
    except ValueError:
        return None
    code = getattr(unwrapped, "__code__", None)
    return code if isinstance(code, CodeType) else None


def library_function(function: Any) -> bool:
    """Whether ``function`` is JAX's own (its code is in JAX's files: a jitted function of
    the user's is the user's, though jit wrapped it)."""
    code = _code_of(function)
    if code is not None:
        return is_jax_file(code.co_filename)
    return is_jax_object(function)


def _api_entry(function: Any, tbs: list[TracebackType], index: int) -> int | None:
    """The traceback entry, after the user's, that runs ``function``'s code (for a class,
    one of its methods)."""
    code = _code_of(function)
    qualname = getattr(function, "__qualname__", None) if isinstance(function, type) else None
    for position in range(index + 1, len(tbs)):
        frame_code = tbs[position].tb_frame.f_code
        if frame_code is code or (qualname and getattr(frame_code, "co_qualname", "")
                                  .startswith(qualname + ".")):
            return position
    return None


# -- the public name, the signature, the docs -----------------------------------------------

def public_name(call: UserCall, aliases: Mapping[str, str]) -> str:
    """JAX's public name for the callee: ``jax.numpy.linalg.cholesky`` (its ``__module__``
    where JAX exports it so, else the user's spelling with the module's alias undone)."""
    function = call.function
    if function is None:
        return ""
    module = getattr(function, "__module__", "") or ""
    name = getattr(function, "__qualname__", None) or getattr(function, "__name__", "")
    if call.method_of is not None:
        return f"jax.Array.{call.spelled.rsplit('.', 1)[-1]}"
    if isinstance(module, str) and module.startswith("jax") and "._src" not in module \
            and not module.startswith("jaxlib") and isinstance(name, str) and "<" not in name:
        return f"{module}.{name}"
    head, _, rest = call.spelled.partition(".")
    for full, alias in aliases.items():
        if alias == head and full.startswith("jax"):
            return f"{full}.{rest}" if rest else full
    return call.spelled if call.spelled.startswith("jax.") else ""


# Modules whose classes are documented on the module's own page, not under _autosummary.
_CLASS_PAGES = ("jax.sharding",)
_DOCS = "https://docs.jax.dev/en/latest/"


def doc_url(public: str, function: Any) -> str | None:
    """The page of ``public`` in JAX's API reference (the forms the docs use)."""
    if not public.startswith("jax.") or "._src" in public or public.startswith("jax.Array."):
        return None if not public.startswith("jax.Array.") else (
            f"{_DOCS}_autosummary/{public}.html")
    module = public.rsplit(".", 1)[0]
    if isinstance(function, type) and module in _CLASS_PAGES:
        return f"{_DOCS}{module}.html#{public}"
    return f"{_DOCS}_autosummary/{public}.html"


def signature_of(function: Any) -> inspect.Signature | None:
    try:
        return inspect.signature(function)
    except (TypeError, ValueError):
        return None


def call_form(name: str, signature: inspect.Signature) -> str:
    """The signature as a call would be written: ``bits(key, shape=(), dtype=None)``."""
    parts = []
    star = False
    for parameter in signature.parameters.values():
        if parameter.kind is parameter.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        if parameter.kind is parameter.VAR_POSITIONAL:
            parts.append(f"*{parameter.name}")
            star = True
        elif parameter.kind is parameter.VAR_KEYWORD:
            parts.append(f"**{parameter.name}")
        elif parameter.default is parameter.empty:
            parts.append(parameter.name)
        else:
            parts.append(f"{parameter.name}={_default_text(parameter.default)}")
    return f"{name}({', '.join(parts)})"


def _default_text(value: object) -> str:
    if value is None or type(value) in (int, float, bool, str, tuple):
        text = repr(value)
        return text if len(text) <= 30 else text[:29] + "…"
    return getattr(value, "__name__", None) or type(value).__name__


def parameter_docs(function: Any) -> dict[str, str]:
    """Each parameter's description in the function's docstring (its Google-style ``Args:``
    section, as JAX writes them), up to its first blank line, as one line."""
    try:
        doc = inspect.getdoc(inspect.unwrap(function)) or ""
    except ValueError:
        doc = ""
    if isinstance(function, type) and "Args:" not in doc:
        doc = inspect.getdoc(function.__dict__.get("__init__")) or ""
    found: dict[str, list[str]] = {}
    section: int | None = None  # the Args: header's indent, while in that section
    current: str | None = None
    indent_of_names = -1
    for line in doc.splitlines():
        indent = len(line) - len(line.lstrip())
        header = _DOC_SECTION.match(line)
        if header:
            section, current, indent_of_names = len(header.group(1)), None, -1
            continue
        if section is None:
            continue
        if not line.strip():
            current = None  # a description's first paragraph ends here
            continue
        if indent <= section:
            section = current = None  # the next section
            continue
        parameter = _DOC_PARAMETER.match(line)
        if parameter and indent_of_names in (-1, indent):
            indent_of_names = indent
            current = parameter.group(2)
            found[current] = [parameter.group(3).strip()]
        elif current is not None:
            found[current].append(line.strip())
    docs = {}
    for name, parts in found.items():
        text = " ".join(part for part in parts if part)
        text = re.sub(r"(?::\w+)+:`~?([^`]+)`", r"`\1`", text).replace("``", "`")
        docs[name] = text if len(text) <= _MAX_DOC else text[:_MAX_DOC - 1] + "…"
    return docs


# -- binding --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Argument:
    """A placeholder for one argument of the user's call: its source text, its node, and
    its value where it was read already (an item of a ``*args`` tuple)."""

    text: str
    node: ast.expr | None
    value: Any = CANNOT


def arguments_of(call: UserCall) -> tuple[list[Any], dict[str, Any]] | None:
    """The call's arguments as placeholders (a method's object first); None when a
    ``*args`` or ``**kwargs`` cannot be read."""
    node = call.node
    if not isinstance(node, ast.Call):
        return None
    if isinstance(node.func, ast.Call):
        node = node.func  # a transform's call: its own arguments
    evaluate = Evaluator(call.frame)
    args: list[Any] = []
    if call.method_of is not None and isinstance(node.func, ast.Attribute):
        args.append(Argument(call.method_of, node.func.value))
    for argument in node.args:
        if isinstance(argument, ast.Starred):
            items: Any = evaluate(argument.value)
            if type(items) not in (tuple, list):
                return None
            base = ast.unparse(argument.value)
            args += [Argument(f"{base}[{i}]", None, item) for i, item in enumerate(items)]
        else:
            args.append(Argument(ast.unparse(argument), argument))
    kwargs: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            value = evaluate(keyword.value)
            if type(value) is not dict:
                return None
            base = ast.unparse(keyword.value)
            kwargs.update({key: Argument(f"{base}[{key!r}]", None, item)
                           for key, item in value.items() if isinstance(key, str)})
        else:
            kwargs[keyword.arg] = Argument(ast.unparse(keyword.value), keyword.value)
    return args, kwargs


def bind(call: UserCall) -> tuple[inspect.Signature | None, inspect.BoundArguments | None,
                                   str | None]:
    """(signature, bound arguments, Python's binding error), worked out once per call."""
    if call.bound is None:
        call.bound = _bind(call)
    return call.bound


def _bind(call: UserCall) -> tuple[inspect.Signature | None, inspect.BoundArguments | None,
                                    str | None]:
    signature = signature_of(call.function)
    parts = arguments_of(call)
    if signature is None or parts is None:
        return signature, None, None
    args, kwargs = parts
    try:
        return signature, signature.bind(*args, **kwargs), None
    except TypeError as error:
        return signature, None, str(error)


_KEYWORD_ERROR = re.compile(r"unexpected keyword argument '(\w+)'")
_MISSING_ERROR = re.compile(r"missing (?:a )?required (?:positional |keyword-only )?"
                            r"argument:? '?(\w+)'?")
_MULTIPLE_ERROR = re.compile(r"multiple values for argument '(\w+)'")


def mismatch_sentence(call: UserCall, signature: inspect.Signature, error: str) -> str:
    """Python's binding error in the user's names: which argument fits no parameter."""
    name = call.name
    parameters = signature.parameters
    keyword = _KEYWORD_ERROR.search(error)
    if keyword is not None:
        wrong = keyword.group(1)
        public = [p for p in parameters if not p.startswith("_")]
        close = difflib.get_close_matches(wrong, public, n=2, cutoff=0.6)
        nearest = (f"; the name closest to it is `{close[0]}`" if len(close) == 1 else
                   f"; the names closest to it are {', '.join(f'`{c}`' for c in close)}"
                   if close else "")
        return f"`{name}` has no parameter `{wrong}`{nearest}."
    missing = _MISSING_ERROR.search(error)
    if missing is not None:
        return f"`{name}` needs `{missing.group(1)}`, and the call does not give it."
    multiple = _MULTIPLE_ERROR.search(error)
    if multiple is not None:
        return (f"`{multiple.group(1)}` is given twice, by position and by name.")
    parts = arguments_of(call)
    if "positional argument" in error and parts is not None:
        given = [arg.text for arg in parts[0]][1 if call.method_of is not None else 0:]
        positional = [p.name for p in parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                      and p.name != "self"]
        extra = given[len(positional):]
        keyword_only = [p.name for p in parameters.values() if p.kind is p.KEYWORD_ONLY
                        and not p.name.startswith("_")]
        if extra:
            takes = ", ".join(f"`{p}`" for p in positional) or "nothing"
            later = (f"; {', '.join(f'`{p}`' for p in keyword_only)} only by name"
                     if keyword_only else "")
            return (f"it passes {len(given)} arguments by position, and `{name}` takes "
                    f"{takes} by position{later}: {', '.join(f'`{e}`' for e in extra)} "
                    f"{'has' if len(extra) == 1 else 'have'} no parameter.")
    return error.rstrip(".") + "."


def bound_arguments(call: UserCall, signature: inspect.Signature,
                    bound: inspect.BoundArguments, read: set[str],
                    docs: Mapping[str, str],
                    shapes: set[tuple[int, ...]]) -> tuple[BoundArgument, ...]:
    """Each parameter with the user's expression and what it held; marked as read where the
    check read it (``read``), or, where no parameter was read by name, where it is an array
    whose shape the check or JAX's message names (``shapes``): its value reached the
    check."""
    evaluate = Evaluator(call.frame)
    api_frame = call.frames[call.api] if call.api is not None else None
    reassigned = _reassigned(api_frame.f_code) if api_frame is not None else frozenset()
    found = []
    for name, parameter in signature.parameters.items():
        if name in bound.arguments:
            given = bound.arguments[name]
            if parameter.kind is parameter.VAR_POSITIONAL:
                text = ", ".join(arg.text for arg in given)
                values = [_value(arg, evaluate, None, name, reassigned) for arg in given]
                summaries = [jax_check.summary(v) if v is not CANNOT else "…" for v in values]
                value = (", ".join(summaries) if len(given) <= 4 and set(summaries) != {"…"}
                         else f"{len(given)} argument{'s' if len(given) != 1 else ''}")
                reached = any(_shape(v) in shapes for v in values)
            elif parameter.kind is parameter.VAR_KEYWORD:
                text = ", ".join(f"{key}={arg.text}" for key, arg in given.items())
                value = f"{len(given)} keyword argument{'s' if len(given) != 1 else ''}"
                reached = False
            else:
                text = given.text
                held = _value(given, evaluate, api_frame, name, reassigned)
                value = jax_check.summary(held) if held is not CANNOT else "?"
                reached = _shape(held) in shapes
            found.append((BoundArgument(name, text, value, name in read, docs.get(name, "")),
                          reached))
        elif parameter.default is not parameter.empty:
            found.append((BoundArgument(name, None, jax_check.summary(parameter.default),
                                        name in read, docs.get(name, "")), False))
    if read:
        return tuple(argument for argument, _ in found)
    return tuple(replace(argument, read=True) if reached else argument
                 for argument, reached in found)


def _shape(value: object) -> tuple[int, ...] | None:
    """An array's shape, with at least one axis (a scalar's ``()`` names nothing)."""
    described = describe("", value) if value is not CANNOT else None
    return described.shape if described is not None and described.shape else None


def received(call: UserCall, node: ast.expr) -> object:
    """What the user's argument ``node`` held, where its expression cannot be read safely
    (``jnp.array([2.0, 1.0])`` is a call): the value the JAX function received for the
    parameter it is bound to, where the function's body never rebinds that name; CANNOT
    otherwise."""
    _, bound, _ = bind(call)
    if bound is None or call.api is None:
        return CANNOT
    api_frame = call.frames[call.api]
    for name, given in bound.arguments.items():
        if getattr(given, "node", None) is node:
            return _value(given, Evaluator(call.frame), api_frame, name,
                          _reassigned(api_frame.f_code))
    return CANNOT


def _value(given: Argument, evaluate: Evaluator, api_frame: FrameType | None, name: str,
           reassigned: frozenset[str]) -> object:
    """What the argument held: its expression read in the user's frame, else what the
    function received, where its body never rebinds the name; CANNOT when neither."""
    if given.value is not CANNOT:
        return given.value
    if given.node is not None:
        value = evaluate(given.node)
        if value is not CANNOT:
            return value
    if api_frame is not None and name not in reassigned and name in api_frame.f_locals:
        return api_frame.f_locals[name]
    return CANNOT


def _reassigned(code: CodeType) -> frozenset[str]:
    tree, _ = jax_check.function_tree(code)
    if tree is None:
        return frozenset(code.co_varnames)  # unknown: every name may be rebound
    return frozenset(node.id for node in ast.walk(tree)
                     if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store))


# -- which parameters the check read ----------------------------------------------------------

def _parameters(code: CodeType) -> tuple[str, ...]:
    count = code.co_argcount + code.co_kwonlyargcount
    flags = code.co_flags
    count += bool(flags & inspect.CO_VARARGS) + bool(flags & inspect.CO_VARKEYWORDS)
    return code.co_varnames[:count]


def machinery(code: CodeType) -> bool:
    """A frame of JAX's wrappers between a caller and the function it called (jit's cache
    miss, tracing, the traceback filter): its parameters are not the callee's."""
    where = jax_check.jax_relative(code.co_filename)
    return where.startswith(_WRAPPER_FILES) or code.co_name in _WRAPPER_NAMES


def read_parameters(call: UserCall, raised: jax_check.RaisedAt,
                    signature: inspect.Signature) -> set[str]:
    """The callee's parameters the check read: the check's names followed up the frames,
    from the function that raised to the one the user called. A name that is a parameter
    of its frame becomes the names of the argument the caller passed for it (JAX's
    wrappers in between skipped); a closure's free variable stays a name for the frames
    above; a comprehension's loop takes the names the caller's comprehension reads, less
    its own loop names."""
    frames = call.frames
    top = call.api if call.api is not None else call.index
    wanted = set(signature.parameters)
    names = set(raised.names)
    position = raised.index
    # the keywords the check read that travel in a ``**kwargs`` dict (a primitive's params,
    # from ``prim.bind(x, axes=...)`` to its shape rule): only they are taken from a call
    # whose keywords land in such a dict
    keys: set[str] = set()
    while position > top:
        code = frames[position].f_code
        names = _derived_names(code, names, frames[position].f_locals)
        parameters = set(_parameters(code))
        free = names & set(code.co_freevars)
        comprehension = code.co_name.startswith("<") and code.co_name != "<lambda>"
        if not (names & parameters or free or comprehension):
            return set()
        caller = position - 1
        while caller > top and machinery(frames[caller].f_code):
            caller -= 1
        if caller <= call.index and call.api is not None:
            return set()
        node = expression_at(raised.frames[caller])
        if comprehension:  # the names it reads, less its own loop names
            names = _names_in(node) - set().union(*(
                _names_in(part.target) for part in ast.walk(node)
                if isinstance(part, ast.comprehension))) if node is not None else set()
        elif isinstance(node, ast.Call):
            names = _caller_names(node, code, names & parameters, keys)
        else:
            names = set()
        names |= free
        position = caller
    return names & wanted


def _derived_names(code: CodeType, names: set[str],
                   values: Mapping[str, object] | None = None) -> set[str]:
    """``names`` with the names their values were computed from in ``code``'s function
    (``pos = operator.index(axis)``: pos, axis; ``for d in dims``: d, dims), for the
    names that are not parameters. A name that holds a function (``values``: the frame's
    locals) is not followed into what built it (``f_partial, dyn_args =
    argnums_partial(f, argnums, args)``): a check of what the function returns is about
    the function, not the arguments it was built beside."""
    tree, _ = jax_check.function_tree(code)
    if tree is None:
        return names
    assignments: list[tuple[set[str], ast.AST]] = []
    parameters = set(_parameters(code))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets = set().union(*(_names_in(target) for target in node.targets))
            value: ast.AST = node.value
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
                    and value.func.id in parameters:
                # ``ans = fun(*tracers)``: what a function given to JAX returned is that
                # function's doing, not its arguments'
                value = value.func
            assignments.append((targets, value))
        elif isinstance(node, ast.AnnAssign | ast.AugAssign) and node.value is not None:
            assignments.append((_names_in(node.target), node.value))
        elif isinstance(node, ast.For | ast.comprehension):
            assignments.append((_names_in(node.target), node.iter))
    functions = {name for name, value in (values or {}).items()
                 if callable(value) and not isinstance(value, type)}
    found = set(names)
    for _ in range(4):
        grown = set(found)
        for targets, value in assignments:
            # a parameter stays itself (``a = asarray(a)`` is still the caller's ``a``)
            if targets & found - parameters - functions:
                grown |= _names_in(value)
        if grown == found:
            break
        found = grown
    return found


def _caller_names(node: ast.Call, code: CodeType, parameters: set[str],
                  keys: set[str]) -> set[str]:
    """The names in the caller's arguments that bound ``parameters`` of ``code``: by
    position (a method's ``self`` is the object the call is made on), by keyword, and
    through ``*args`` and ``**kwargs`` for what lands there. ``keys`` (updated here): the
    parameters wanted that the caller passes inside a ``**`` dict, so that a keyword
    landing in a ``**kwargs`` parameter further up is taken only where it is one of them."""
    flags = code.co_flags
    named = list(code.co_varnames[:code.co_argcount])
    keyword_only = code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]
    rest = code.co_argcount + code.co_kwonlyargcount
    varargs = code.co_varnames[rest] if flags & inspect.CO_VARARGS else None
    varkw = (code.co_varnames[rest + bool(varargs)] if flags & inspect.CO_VARKEYWORDS
             else None)
    if named and named[0] in ("self", "cls") and isinstance(node.func, ast.Attribute):
        named = named[1:]  # ``obj.method(a)``: ``a`` is the second parameter
    names: set[str] = set()
    positional = [arg for arg in node.args if not isinstance(arg, ast.Starred)]
    starred = [arg for arg in node.args if isinstance(arg, ast.Starred)]
    for position, argument in enumerate(positional):
        slot = named[position] if position < len(named) else varargs
        if slot in parameters:
            names |= _names_in(argument)
    given = {keyword.arg for keyword in node.keywords if keyword.arg is not None}
    given |= set(named[:len(positional)])
    if any(keyword.arg is None for keyword in node.keywords):
        keys |= (parameters & {*named, *keyword_only}) - given
    for keyword in node.keywords:
        slot = keyword.arg if keyword.arg in (*named, *keyword_only) else varkw
        if keyword.arg is None or (slot in parameters and (
                slot != varkw or not keys or keyword.arg in keys)):
            names |= _names_in(keyword.value)
    if starred and (parameters - set(named[:len(positional)]) - set(keyword_only)
                    - {varkw}):
        for argument in starred:
            names |= _names_in(argument)
    return names


def _names_in(node: ast.AST) -> set[str]:
    """The names an argument reads (a lambda's body is not read when it is passed)."""
    found: set[str] = set()
    pending = [node]
    while pending:
        child = pending.pop()
        if isinstance(child, ast.Lambda):
            continue
        if isinstance(child, ast.Name):
            found.add(child.id)
        pending.extend(ast.iter_child_nodes(child))
    return found


def shapes_named(text: str) -> set[tuple[int, ...]]:
    """The shapes a message or value names: ``(2, 3)``, ``[2, 3]`` (at least one axis)."""
    found = set()
    for match in re.finditer(r"[\(\[]\s*(\d+(?:\s*,\s*\d+)*)\s*,?\s*[\)\]]", text):
        found.add(tuple(int(part) for part in match.group(1).split(",")))
    return found


@dataclass(frozen=True)
class Inside:
    """The operation of JAX's own that failed inside the function the user called, and the
    public function around it, where there is one."""

    operation: str  # "add"
    function: str = ""  # "symmetrize"
    file: str = ""  # "lax/linalg.py"

    @property
    def text(self) -> str:
        """``add, in symmetrize (lax/linalg.py)``, as the binding carries it."""
        return (f"{self.operation}, in {self.function} ({self.file})" if self.function
                else self.operation)


def inside(call: UserCall, raised: jax_check.RaisedAt) -> Inside | None:
    """Where, inside the callee, the operation that failed ran, when it is another public
    function of JAX's than the one the user called (cholesky's ``add``, in
    ``symmetrize``); None when the callee's own check (or a helper's) raised."""
    if call.api is None or call.operator is not None:
        return None
    public: list[tuple[str, str]] = []
    for position in range(call.api + 1, raised.index + 1):
        code = call.frames[position].f_code
        where = jax_check.jax_relative(code.co_filename)
        if (code.co_name.startswith(("_", "<")) or code.co_name in _MACHINERY_NAMES
                or code.co_name.endswith("_rule") or where.startswith(_MACHINERY_FILES)):
            continue
        public.append((code.co_name, where))
    if not public:
        return None
    operation = public[-1][0]
    if operation == call.name and len(public) == 1:
        return None
    around = next(((name, where) for name, where in reversed(public)
                   if name not in (operation, call.name)), None)
    return Inside(operation, *around) if around is not None else Inside(operation)
