"""What the core tracer errors (JNH301-JNH306) share: reading JAX's "while tracing" note,
and finding what the call site passed for the traced arguments.

JAX's tracer errors end with a sentence like::

    The error occurred while tracing the function f at <ipython-input-2-ab12>:1 for jit.
    This concrete value was not available in Python because it depends on the value of
    the argument flag.

It names the traced function, the first line of its definition (decorators included) and
the parameters the value came from. That is enough to find the ``def``, the user frame
that called it, and the expression passed for each parameter: a Python setting can be made
static (``_static_fix``), an array cannot.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from types import FrameType
from typing import Literal

from jax_nbhelp.catalog import _entry
from jax_nbhelp.core.model import Location
from jax_nbhelp.core.protocol import is_top_level
from jax_nbhelp.diagnosis import line_values
from jax_nbhelp.diagnosis.context import ErrorContext, Frame, Link
from jax_nbhelp.diagnosis.line_values import parsed_source
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.diagnosis.safe_eval import Evaluator
from jax_nbhelp.rewrite.transforms import SIGNATURE_KEEPING

_ORIGIN_RE = re.compile(
    r"The error occurred while tracing the function (?P<function>\S+)"
    r"(?: at (?P<file>\S.*?):(?P<line>\d+))? for (?P<purpose>[^.\n]+)\."
)
_ARGUMENTS_RE = re.compile(r"depends on the values? of the arguments? (?P<names>.+?)\.\s*$",
                           re.MULTILINE)
_SPLIT_RE = re.compile(r", and |, | and ")

# python: a hashable setting (bool, int, str, None); scalar: a Python float or complex
ArgumentKind = Literal["python", "scalar", "array", "unknown"]

_PYTHON_TYPES = frozenset(f"builtins.{name}" for name in ("bool", "int", "str", "NoneType"))
_SCALAR_TYPES = frozenset({"builtins.float", "builtins.complex"})
_ARRAY_TYPES = frozenset(
    {"numpy.ndarray", "jaxlib._jax.ArrayImpl", "jaxlib.xla_extension.ArrayImpl"}
)
_JITTED_TYPES = ("PjitFunction", "JitWrapped")
_NUMPY_ARRAY_MAKERS = frozenset(
    {"array", "asarray", "zeros", "ones", "full", "empty", "arange", "linspace", "eye"}
)


def error_link(ctx: ErrorContext, class_name: str) -> Link | None:
    """The first exception in the chain that is a ``class_name``."""
    for link in ctx.chain:
        if link.is_a(class_name):
            return link
    return None


@dataclass(frozen=True)
class TraceOrigin:
    """The function being traced when the error happened and the arguments it came from."""

    function: str
    filename: str | None
    lineno: int | None
    purpose: str  # "jit", "pallas_call kernel", "fori_loop", ...
    arguments: tuple[str, ...]  # parameter names; pytree leaves look like "cfg['flag']"

    @property
    def for_jit(self) -> bool:
        return self.purpose == "jit"

    @property
    def in_kernel(self) -> bool:
        return self.purpose.startswith("pallas_call")

    @property
    def plain_arguments(self) -> bool:
        """Every traced value is a whole parameter (not a leaf of a dict or tuple)."""
        return bool(self.arguments) and all(name.isidentifier() for name in self.arguments)

    def by_parameter(self) -> TraceOrigin:
        """The same origin with items of a sequence (``shape[0]``) named by their parameter
        (``shape``): what a call passed for it says whether the whole can be static (a
        tuple of ints can, a list cannot). A dict's entries (``cfg['n']``) stay as they are."""
        roots: list[str] = []
        for name in self.arguments:
            found = _ITEM_RE.fullmatch(name)
            root = found.group("root") if found is not None else name
            if root not in roots:
                roots.append(root)
        return replace(self, arguments=tuple(roots))


_ITEM_RE = re.compile(r"(?P<root>[A-Za-z_]\w*)(?:\[\d+\])+")


def trace_origin(message: str) -> TraceOrigin | None:
    matches = list(_ORIGIN_RE.finditer(message))
    if not matches:
        return None
    match = matches[0]
    # A value that needs several traced arguments (``x.reshape(rows, cols)``) gets one
    # "while tracing" note per argument, each naming the same function.
    arguments: list[str] = []
    for number, found in enumerate(matches):
        if found.group(0) != match.group(0):
            continue
        end = matches[number + 1].start() if number + 1 < len(matches) else len(message)
        names = _ARGUMENTS_RE.search(message[found.end():end])
        for name in _SPLIT_RE.split(names.group("names")) if names else ():
            if name not in arguments:
                arguments.append(name)
    return TraceOrigin(
        function=match.group("function"),
        filename=match.group("file"),
        lineno=int(match.group("line")) if match.group("line") else None,
        purpose=match.group("purpose").strip(),
        arguments=tuple(arguments),
    )


def plural(count: int, one: str, many: str) -> str:
    return one if count == 1 else many


def quoted(names: tuple[str, ...] | list[str]) -> str:
    """``flag``, ``a and b``, ``a, b and c``."""
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


def traced_in(origin: TraceOrigin) -> str:
    """``f (traced for jit)`` or ``the Pallas kernel (kernel)``."""
    if origin.in_kernel:
        return f"the Pallas kernel ({origin.function})"
    return f"{origin.function} (traced for {origin.purpose})"


def depends_on(origin: TraceOrigin) -> str:
    """``the value depends on flag, a tracer there`` (or on several arguments)."""
    if not origin.arguments:
        return "the value is a tracer"
    count = len(origin.arguments)
    return (f"the value depends on {quoted(origin.arguments)}, "
            f"{plural(count, 'a tracer', 'tracers')} there")


# -- source helpers -------------------------------------------------------------------------


GRADS = ("grad", "value_and_grad")


def grad_calls(location: Location, names: tuple[str, ...] = GRADS
               ) -> list[tuple[ast.Call, ast.Call]]:
    """The calls ``jax.grad(f, ...)(args)`` (or ``value_and_grad``, by any alias of the
    module; or another of ``names``) on the location's line, outermost first: the call and
    the grad call in it."""
    parsed = parse(location.source)
    if parsed is None:
        return []
    return [(node, node.func) for node in ast.walk(parsed[0])
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Call)
            and node.lineno <= location.lineno <= (node.end_lineno or 0)
            and (dotted(node.func.func) or "").rsplit(".", 1)[-1] in names]


def parse(source: str | None) -> tuple[ast.Module, str] | None:
    """``source`` parsed by Python with IPython lines hidden (same line numbers), or None
    (``line_values.parsed_source``: parsed once for every entry that asks)."""
    return parsed_source(source) if source is not None else None


@lru_cache(maxsize=16)
def _lines(code: str) -> list[str]:
    return code.splitlines(keepends=True)


def replacing(node: ast.AST, before: str, after: str) -> Callable[[str], str]:
    """The rewrite that writes ``after`` in place of the expression ``node`` (on one line
    or over several), whose text is ``before``; it refuses (CannotRewrite) where the
    source no longer holds it there."""
    lineno, start, end = node.lineno, node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
    last = getattr(node, "end_lineno", None) or lineno

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.errors import CannotRewrite

        lines = [line.encode() for line in source.split("\n")]
        if not 0 < lineno <= last <= len(lines):
            raise CannotRewrite(f"`{before}` is no longer on line {lineno}")
        head, tail = lines[lineno - 1][:start], lines[last - 1][end:]
        written = b"\n".join([lines[lineno - 1][start:], *lines[lineno:last - 1],
                              lines[last - 1][:end]]) if last > lineno \
            else lines[lineno - 1][start:end]
        if written.decode(errors="replace").strip() != before.strip():
            raise CannotRewrite(f"`{before}` is no longer on line {lineno}")
        joined = (head + after.encode() + tail).decode()
        return "\n".join([*(line.decode() for line in lines[:lineno - 1]), joined,
                          *(line.decode() for line in lines[last:])])

    return transform


def replacing_each(edits: Sequence[tuple[ast.AST, str, str]]) -> Callable[[str], str]:
    """``replacing`` for several one-line expressions ``(node, before, after)``, applied from
    the end of the source back, so that each leaves the columns before it as they were."""
    return from_the_end([(node, replacing(node, before, after))
                         for node, before, after in edits])


def from_the_end(steps: Sequence[tuple[ast.AST, Callable[[str], str]]]
                 ) -> Callable[[str], str]:
    """The rewrites ``(node, rewrite)``, each of its own node's place, applied from the
    end of the source back (the later place first: the columns and lines before it keep)."""
    ordered = [rewrite for _, rewrite in sorted(
        steps, key=lambda step: (-step[0].lineno, -step[0].col_offset))]  # type: ignore[attr-defined]

    def transform(source: str) -> str:
        for step in ordered:
            source = step(source)
        return source

    return transform


def replacing_lines(first: int, last: int, before: str, after: Sequence[str],
                    what: str) -> Callable[[str], str]:
    """The rewrite that writes the lines ``after`` in place of lines ``first`` to ``last``,
    whose text is ``before``; it refuses where they are no longer so (``what`` names them)."""

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.errors import CannotRewrite

        lines = source.split("\n")
        if "\n".join(lines[first - 1:last]) != before:
            raise CannotRewrite(f"{what} on line {first} is no longer as it was")
        return "\n".join([*lines[:first - 1], *after, *lines[last:]])

    return transform


def segment(code: str, node: ast.AST, strip: bool = True) -> str:
    """The source text of ``node`` in ``code`` (its lines split once per source), stripped
    unless ``strip`` is false (then exactly as the source holds it)."""
    lineno, end = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
    col, end_col = getattr(node, "col_offset", None), getattr(node, "end_col_offset", None)
    if lineno is None or end is None or col is None or end_col is None:
        return ""
    lines = _lines(code)[lineno - 1:end]
    if not lines:
        return ""
    if len(lines) == 1:
        text = lines[0].encode()[col:end_col].decode(errors="replace")
    else:
        text = (lines[0].encode()[col:].decode(errors="replace") + "".join(lines[1:-1])
                + lines[-1].encode()[:end_col].decode(errors="replace"))
    return text.strip() if strip else text


def is_jit(node: ast.AST) -> bool:
    name = dotted(node)
    return name is not None and (name == "jit" or name.endswith(".jit"))


def jits(decorator: ast.expr) -> bool:
    if is_jit(decorator):
        return True
    if not isinstance(decorator, ast.Call):
        return False
    if is_jit(decorator.func):
        return True
    partial = dotted(decorator.func)
    return (partial is not None and (partial == "partial" or partial.endswith(".partial"))
            and bool(decorator.args) and is_jit(decorator.args[0]))


def _first_line(func: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    return min([func.lineno, *(d.lineno for d in func.decorator_list)])


def find_def(tree: ast.Module, name: str, lineno: int | None) -> ast.FunctionDef | None:
    """The ``def name`` whose header (decorators included) starts at or covers ``lineno``."""
    found = [
        node for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name == name
        and (lineno is None or _first_line(node) <= lineno <= node.lineno)
    ]
    return found[0] if len(found) == 1 else None


# -- the call into the jitted function ------------------------------------------------------


@dataclass(frozen=True)
class PassedArgument:
    """What the call site passed for one traced parameter."""

    parameter: str
    expression: str | None
    kind: ArgumentKind
    # the expression in the calling line's cell as parsed (None where the line was read
    # another way, a `%time` line's statement say): where a rewrite of the call edits it
    node: ast.expr | None = field(default=None, compare=False, repr=False)

    def describe(self) -> str:
        """``flag=True`` as the call passes it, or the bare name when unknown."""
        if self.expression is None or self.expression == self.parameter:
            return self.parameter
        return f"{self.parameter}={self.expression}"


@dataclass(frozen=True)
class JitCall:
    """The user line that called the traced function, and what it passed."""

    origin: TraceOrigin
    definition: Location | None  # the cell or file holding the def, at the def's first line
    caller: Location | None  # the user line that made the call
    callee: str | None  # how the caller spelled the function ("f", "fj", "jax.jit(f)")
    arguments: tuple[PassedArgument, ...]
    module_level: bool  # the call was made from a cell's top level (names are globals)

    def passed(self) -> str:
        """What the call passes for the traced parameters: ``flag=True, n=4``."""
        where = f" at {self.caller.label}" if self.caller is not None else ""
        return f"{', '.join(a.describe() for a in self.arguments)}{where}"

    def kinds(self) -> set[ArgumentKind]:
        return {argument.kind for argument in self.arguments}

    @property
    def all_python(self) -> bool:
        return bool(self.arguments) and self.kinds() == {"python"}

    @property
    def any_array(self) -> bool:
        return "array" in self.kinds()


def _traced_frame_index(frames: tuple[Frame, ...], origin: TraceOrigin) -> int | None:
    for index, frame in enumerate(frames):
        if frame.function == origin.function and (
            origin.filename is None or frame.filename == origin.filename
        ):
            return index
    return None


def _caller(ctx: ErrorContext, origin: TraceOrigin) -> Frame | None:
    frames = ctx.top.frames
    index = _traced_frame_index(frames, origin)
    if index is None:
        return None
    before = [frame for frame in frames[:index] if frame.is_user]
    return before[-1] if before else None


def _calls_on_line(tree: ast.Module, lineno: int) -> list[ast.Call]:
    return [
        node for node in ast.walk(tree)
        if isinstance(node, ast.Call) and node.lineno <= lineno <= (node.end_lineno or node.lineno)
    ]


def live_line(ctx: ErrorContext) -> tuple[Location, FrameType, ast.Module, str] | None:
    """The innermost user line of the error, its live frame, and its source parsed (and the
    code); None where any of them cannot be had."""
    location = ctx.deepest_user_location()
    frame = ctx.live_frame(location) if location is not None else None
    parsed = parse(location.source) if location is not None else None
    if location is None or frame is None or parsed is None:
        return None
    return location, frame, *parsed


def statement_end(tree: ast.Module, lineno: int) -> int:
    """The last line of the simple statement (no body of its own) that starts on line
    ``lineno`` and may go on over the next lines (a call with one argument per line);
    ``lineno`` itself where there is none."""
    return max([lineno, *(node.end_lineno or node.lineno for node in ast.walk(tree)
                          if isinstance(node, ast.stmt) and node.lineno == lineno
                          and not hasattr(node, "body"))])


def calls_on(location: Location) -> tuple[list[ast.Call], str]:
    """The calls that start on ``location``'s line (one written over the next lines too),
    and the code they are in; ([], "") where the source cannot be read."""
    parsed = parse(location.source)
    if parsed is None:
        return [], ""
    tree, code = parsed
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)
            and n.lineno == location.lineno], code


def calls_named(location: Location, name: str) -> tuple[list[ast.Call], str]:
    """The calls that start on ``location``'s line whose callee's last name is ``name``
    (``jax.lax.with_sharding_constraint`` for ``with_sharding_constraint``), and the code
    they are in; ([], "") where the source cannot be read."""
    calls, code = calls_on(location)
    return [n for n in calls if (dotted(n.func) or "").rsplit(".", 1)[-1] == name], code


LAMBDA = "<lambda>"  # how Python and JAX's messages name a lambda's code


def names_function(node: ast.AST, function: str) -> bool:
    """Whether ``node`` names ``function`` (``f``, ``mod.f``; a lambda is ``<lambda>``)."""
    if function == LAMBDA:
        return isinstance(node, ast.Lambda)
    name = dotted(node)
    return name is not None and (name == function or name.endswith("." + function))


def _names_wrapped(node: ast.AST, function: str) -> bool:
    if isinstance(node, ast.Call) and node.args and not isinstance(node.args[0], ast.Starred):
        wrapper = dotted(node.func) or ""
        return (wrapper.rsplit(".", 1)[-1] in SIGNATURE_KEEPING
                and _names_wrapped(node.args[0], function))
    return names_function(node, function)


def callee_on_line(ctx: ErrorContext, caller: Location, function: str) -> str | None:
    """How the caller's line spells the one jitted call of ``function`` it makes
    (``jax.jit(jax.grad(loss))``); None when it makes none, or several."""
    parsed = parse(caller.source)
    if parsed is None:
        return None
    calls = [c for c in _calls_on_line(parsed[0], caller.lineno)
             if _is_call_of_traced(c, ctx, function)]
    return segment(parsed[1], calls[0].func) if len(calls) == 1 else None


def _is_call_of_traced(call: ast.Call, ctx: ErrorContext, function: str) -> bool:
    func = call.func
    if names_function(func, function):
        return True
    if isinstance(func, ast.Attribute) and func.attr == function \
            and isinstance(func.value, ast.Call):
        return True  # a method of an object the line builds: `Sampler(2.0).draw(key, 3)`
    if isinstance(func, ast.Call) and is_jit(func.func) and func.args:
        return _names_wrapped(func.args[0], function)
    if isinstance(func, ast.Name):
        kind = ctx.type_of(func.id) or ""
        return kind.endswith(_JITTED_TYPES)
    return False


def classify(node: ast.expr, ctx: ErrorContext, module_level: bool) -> ArgumentKind:
    """Whether an argument expression is a Python value, an array, or unknown here."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, (float, complex)):
            return "scalar"
        return "python" if not isinstance(node.value, bytes) else "unknown"
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
        return classify(node.operand, ctx, module_level)
    if isinstance(node, ast.Name):
        if not module_level:
            return "unknown"  # a local of the calling function: its value is not recorded
        kind = ctx.type_of(node.id)
        if kind in _PYTHON_TYPES:
            return "python"
        if kind in _SCALAR_TYPES:
            return "scalar"
        if kind in _ARRAY_TYPES:
            return "array"
        return "unknown"
    if isinstance(node, ast.Tuple) and node.elts and all(
            classify(item, ctx, module_level) == "python" for item in node.elts):
        return "python"  # (2, 3): a tuple of settings hashes, as a shape does
    if isinstance(node, ast.Attribute) and node.attr in ("shape", "ndim", "size"):
        return "python"  # x.shape is a tuple of Python ints, even while x is traced
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) \
            and node.value.attr == "shape":
        return "python"  # x.shape[0] is a Python int
    if isinstance(node, ast.Call):
        name = dotted(node.func) or ""
        if name in {"len", "int", "bool", "str"}:
            return "python"
        head, _, rest = name.partition(".")
        if head and head in {ctx.alias("jax.numpy"), ctx.alias("jax"), "jnp", "jax"}:
            return "array"
        if head and head in {ctx.alias("numpy"), "np"} and rest in _NUMPY_ARRAY_MAKERS:
            return "array"
    return "unknown"


def bind_argument(call: ast.Call, func: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
                  parameter: str, skip_first: bool = False) -> ast.expr | None:
    """The expression ``call`` passes for ``parameter`` of ``func`` (None if unclear);
    ``skip_first`` where the call does not pass the first parameter (``Cls(...)`` of an
    ``__init__(self, ...)``)."""
    for keyword in call.keywords:
        if keyword.arg == parameter:
            return keyword.value
    positional = [*func.args.posonlyargs, *func.args.args][1 if skip_first else 0:]
    names = [arg.arg for arg in positional]
    if parameter not in names:
        return None
    index = names.index(parameter)
    args = call.args
    if any(isinstance(arg, ast.Starred) for arg in args[: index + 1]):
        return None
    return args[index] if index < len(args) else None


_TIMED_RE = re.compile(r"\s*(?:[\w.]+\s*=\s*)?%time(?:it)?(?:\s+-\w+(?:\s*\d+)?)*\s+"
                       r"(?P<statement>.+)$")


def jit_call(ctx: ErrorContext, origin: TraceOrigin,
             definition: Location | None = None, calling: Frame | None = None) -> JitCall:
    """Find the traced function's ``def`` and what its caller passed for each argument
    (items of a sequence, ``shape[0]``, by their parameter: ``TraceOrigin.by_parameter``).

    ``definition`` (the def's first line) is found from JAX's message when not given, and
    the ``calling`` frame from the traceback (the user frame before the traced function's).
    """
    origin = origin.by_parameter()
    if definition is None:
        definition = (ctx.place(origin.filename, origin.lineno)
                      if origin.filename is not None and origin.lineno is not None else None)
    caller_frame = calling or _caller(ctx, origin)
    caller = caller_frame.location if caller_frame is not None else None
    module_level = caller_frame is not None and is_top_level(caller_frame.function)
    unknown = tuple(PassedArgument(name, None, "unknown") for name in origin.arguments)

    def result(arguments: tuple[PassedArgument, ...], callee: str | None = None) -> JitCall:
        return JitCall(origin, definition, caller, callee, arguments, module_level)

    parsed_def = parse(definition.source) if definition is not None else None
    func: ast.FunctionDef | ast.Lambda | None = (
        find_def(parsed_def[0], origin.function, origin.lineno) if parsed_def else None)
    if func is None and parsed_def is not None and origin.function == LAMBDA \
            and definition is not None and definition.kind == "cell":
        lambdas = [node for node in ast.walk(parsed_def[0]) if isinstance(node, ast.Lambda)
                   and node.lineno == origin.lineno]
        # `jax.jit(lambda v, n: ...)` in a cell (a file is never rewritten: its lambdas are
        # not bound, which spares reading a long module's statement again)
        func = lambdas[0] if len(lambdas) == 1 else None
    parsed_call = parse(caller.source) if caller is not None else None
    if func is None or parsed_call is None or caller is None:
        return result(unknown)
    tree, code = parsed_call
    calls = [c for c in _calls_on_line(tree, caller.lineno)
             if _is_call_of_traced(c, ctx, origin.function)]
    timed = _TIMED_RE.match(caller.line)
    as_parsed = bool(calls)
    if not calls and timed is not None:
        # `%time out = f(x, True)`: the statement after the magic is Python.
        parsed_call = parse(timed.group("statement"))
        if parsed_call is not None:
            tree, code = parsed_call
            calls = [c for c in _calls_on_line(tree, 1)
                     if _is_call_of_traced(c, ctx, origin.function)]
    if len(calls) != 1:
        return result(unknown)
    (call,) = calls
    passed = []
    # a method called on its object (`obj.draw(key, 3)`): the object is `self`, not passed
    bound = (isinstance(call.func, ast.Attribute) and not isinstance(func, ast.Lambda)
             and bool(func.args.args) and func.args.args[0].arg in ("self", "cls"))
    for name in origin.arguments:
        node = bind_argument(call, func, name, skip_first=bound) if name.isidentifier() \
            else None
        if node is None:
            passed.append(PassedArgument(name, None, "unknown"))
        else:
            kind = classify(node, ctx, module_level)
            if kind == "unknown" and caller_frame is not None and as_parsed:
                kind = _classify_live(ctx, caller_frame, node)
            passed.append(PassedArgument(name, segment(code, node), kind,
                                         node if as_parsed else None))
    return result(tuple(passed), segment(code, call.func))


def _classify_live(ctx: ErrorContext, caller: Frame, node: ast.expr) -> ArgumentKind:
    """The kind of what ``node`` held in the caller's live frame (``self.n`` in a method, a
    local of the calling function), read without running anything (``safe_eval``)."""
    frame = ctx.live_frame_of(caller)
    if frame is None:
        return "unknown"
    value = Evaluator(frame)(node)
    kind = f"{type(value).__module__}.{type(value).__qualname__}"
    if kind in _PYTHON_TYPES or (type(value) is tuple and len(value) <= 64 and all(
            type(item) in (int, bool, str) for item in value)):
        return "python"
    if kind in _SCALAR_TYPES:
        return "scalar"
    return "array" if kind in _ARRAY_TYPES else "unknown"


# -- what the call passes, in words ------------------------------------------------------


def data_sentence(call: JitCall) -> str:
    """Says the call passes data, so the value only exists inside the compiled program."""
    return (f" The call passes {call.passed()}: data, whose values exist only when the "
            "compiled program runs.")


# -- the statement on the user's line ------------------------------------------------------


def node_at(tree: ast.Module, lineno: int, kinds: tuple[type[ast.AST], ...]) -> ast.AST | None:
    """The innermost node of one of ``kinds`` whose first line is ``lineno``."""
    best: ast.AST | None = None
    for node in ast.walk(tree):
        if isinstance(node, kinds) and getattr(node, "lineno", None) == lineno and (
            best is None or getattr(node, "col_offset", 0) >= getattr(best, "col_offset", 0)
        ):
            best = node
    return best


def spellings(ctx: ErrorContext) -> tuple[str, str]:
    """How the user spells ``jax.numpy`` and ``jax.lax``."""
    jnp = ctx.alias("jax.numpy") or "jnp"
    lax = ctx.alias("jax.lax") or f"{ctx.alias('jax') or 'jax'}.lax"
    return jnp, lax


def quoted_line(location: Location | None, fallback: str) -> str:
    """The user's line as a sentence's subject: ```n = len(x)` at In [2], line 3``, or
    ``fallback`` when jax_nbhelp found no line of the user's."""
    if location is None:
        return fallback
    return f"`{location.line.strip()}`{_entry.at(location)}"


@dataclass(frozen=True)
class Traced:
    """Where a tracer entry starts: the error, the user's line that raised it, and (from
    JAX's "while tracing" note) the traced function and the call that traced it."""

    link: Link
    location: Location | None
    origin: TraceOrigin | None
    call: JitCall | None

    def subject(self, fallback: str) -> str:
        return quoted_line(self.location, fallback)

    @property
    def caller(self) -> Location | None:
        """The line that called the traced function (the diagnosis's "reached from")."""
        return self.call.caller if self.call is not None else None


_SHOWN_TRACER = re.compile(r"(?:Tracer\(|Traced<ShapedArray\()~?(?P<aval>\w+\[[\d, ]*\])")


def origin_from_frames(ctx: ErrorContext, message: str, shown_only: bool = True
                       ) -> tuple[TraceOrigin, Location] | None:
    """For a message without JAX's "while tracing" note: the deepest user function, where
    its ``def`` is decorated with jit, and those of its parameters that the failing line
    holds as jit's tracers (read from the line's live frame) of the shapes and dtypes of
    the tracers the message shows (with ``shown_only`` False, of any shape: a mask
    computed from them); with the def's first line."""
    shown = {found["aval"].replace(" ", "") for found in _SHOWN_TRACER.finditer(message)}
    frames = ctx.top.user_frames
    location = frames[-1].location if frames else None
    parsed = parse(location.source) if location is not None else None
    if location is None or parsed is None:
        return None
    func = find_def(parsed[0], frames[-1].function, None)
    if func is None or not func.lineno <= location.lineno <= (func.end_lineno or 0) \
            or not (any(jits(decorator) for decorator in func.decorator_list)
                    or _called_jitted(ctx, frames, func.name)):
        return None
    parameters = {a.arg for a in (*func.args.posonlyargs, *func.args.args,
                                  *func.args.kwonlyargs)}
    arguments = tuple(dict.fromkeys(
        value.text for value in ctx.values_at(location)
        if value.text in parameters and value.kind == "tracer" and value.transform == "jit"
        and value.shape is not None
        and (not shown_only or f"{value.dtype}[{','.join(map(str, value.shape))}]" in shown)))
    if not arguments:
        return None
    first = _first_line(func)
    lines = _lines(location.source or "")
    definition = replace(location, lineno=first, function="",
                         line=lines[first - 1].rstrip("\n") if first <= len(lines) else "")
    return TraceOrigin(function=func.name, filename=frames[-1].filename, lineno=first,
                       purpose="jit", arguments=arguments), definition


def _called_jitted(ctx: ErrorContext, frames: Sequence[Frame], name: str) -> bool:
    """Whether the user frame before the function ``name``'s called it through jit:
    ``fast = jax.jit(block)``, then ``fast(x, 3)`` (a jit-wrapped function whose
    ``__wrapped__`` is ``name``, read from the caller's live frame)."""
    if len(frames) < 2 or frames[-2].location is None:
        return False
    caller = frames[-2]
    parsed = parse(caller.location.source) if caller.location is not None else None
    live = ctx.live_frame_of(caller)
    if parsed is None or live is None:
        return False
    for call in _calls_on_line(parsed[0], caller.lineno):
        if not isinstance(call.func, ast.Name):
            continue
        value = live.f_locals.get(call.func.id, live.f_globals.get(call.func.id))
        if type(value).__name__ in _JITTED_TYPES \
                and getattr(getattr(value, "__wrapped__", None), "__name__", None) == name:
            return True
    return False


def traced(ctx: ErrorContext, link: Link | None, frames: bool = False,
           shown_only: bool = True) -> Traced | None:
    """The tracer error ``link`` read for an entry (None when the entry found no error);
    with ``frames``, where JAX's message names no traced function, the one the frames show
    (``origin_from_frames``, ``shown_only`` as there)."""
    if link is None:
        return None
    origin = trace_origin(link.message)
    definition = None
    if origin is None and frames:
        origin, definition = origin_from_frames(ctx, link.message, shown_only) or (None, None)
    call = jit_call(ctx, origin, definition) if origin is not None else None
    return Traced(link, ctx.deepest_user_location(), origin, call)


# -- which transformation made the tracer ----------------------------------------------------

_LOOPS = ("scan", "fori_loop", "while_loop", "cond", "switch", "map")


def transform_of(ctx: ErrorContext, found: Traced) -> str | None:
    """The transformation whose tracer the failing line held: the purpose JAX's "while
    tracing" note names (``jit``, ``scan``, ...), else the tracers' own kind read from the
    line's live frame (``vmap`` writes no note)."""
    if found.origin is not None and found.origin.purpose:
        purpose = found.origin.purpose.split()[0]
        if purpose != "jit":
            return purpose
    return transform_at(ctx, found.location) or ("jit" if found.origin is not None else None)


def transform_at(ctx: ErrorContext, location: Location | None) -> str | None:
    """The transformation whose tracers the line's live values are (vmap first: a batch
    tracer inside jit is still a batch)."""
    traced = [v.transform for v in ctx.values_at(location) if v.transform]
    if "vmap" in traced:
        return "vmap"
    return traced[0] if traced else None


def transform_why(transform: str | None, default: str) -> str:
    """Why a Python decision fails under ``transform`` (the entry's own ``WHY`` for jit)."""
    if transform == "vmap":
        return ("jax.vmap runs your function once for a whole batch: each mapped argument is "
                "a tracer that stands for all of its elements at once. Python's if, while, "
                "and/or, int() or a shape must be decided once for all of them, but each "
                "element may need its own answer. Decide per element instead: jnp.where "
                "picks per element, and lax.cond under vmap computes both branches and "
                "selects per element.")
    if transform in _LOOPS:
        return (f"lax.{transform} traces its body (or branches) once, for every step, with "
                "tracers for the values that change from step to step: they have no value "
                "while the body is traced, so Python cannot decide anything from them. "
                f"Values that stay the same can be passed in as Python values; the rest "
                "must be decided with jnp.where or lax.cond inside the body.")
    return default


def why_under(transform: str | None, whys: dict[str, str], default: str) -> str:
    """An entry's why for the transformation that made the tracer (its ``WHY_UNDER``), else
    its own ``WHY`` (written for jit)."""
    return whys.get(transform or "", default)


_WRAPPED_IN = re.compile(r"wrapped in an? (\w+Tracer)\b")


def escaped_transform(message: str) -> str | None:
    """The transformation an escaped tracer came from, as JAX's message names its class
    ("... wrapped in a BatchTracer to escape ..."): vmap, grad or jit."""
    found = _WRAPPED_IN.search(message)
    return line_values.tracer_transform(found.group(1)) if found else None


def batch_sentence(ctx: ErrorContext, found: Traced) -> str:
    """`` Under jax.vmap, `x` stands for a whole batch of values.`` (or "")."""
    if transform_of(ctx, found) != "vmap":
        return ""
    batched = [v.text for v in ctx.values_at(found.location) if v.transform == "vmap"]
    which = f"`{batched[0]}`" if batched else "the value"
    return f" Under jax.vmap, {which} stands for a whole batch of values, one per element."
