"""The check JAX made before it raised, read from JAX's own source and frames.

JAX states in its code exactly what it checked: ``if not dtypes.issubdtype(dtype,
np.unsignedinteger): raise ValueError(...)``. For an exception raised in JAX's Python code,
this finds the frame that raised, the statement there (from the AST of the function that
holds it, parsed once per function and kept until the file changes) and the condition that
guarded it: the nearest enclosing ``if`` (the raise in its body: the test held; in its
``else``: every test of the ``if``/``elif`` chain failed), an ``assert``, or nothing (an
unconditional raise: the function itself is the check). A check made by a helper
(``_check_arraylike``, ``canonicalize_axis``, ``_try_broadcast_shapes``, a function that
only raises) names the function that asked for it.

The condition's parts are evaluated in JAX's live frame with ``safe_eval`` (no code runs);
a part that cannot be read, such as a call of JAX's own function, is shown with the value
the raise implies (``if not f(x): raise``: ``f(x)`` was false), never called again.

Errors raised outside JAX's Python (XLA, jaxlib's C++, NumPy) are shown at the JAX line that
called into them, as a call, with no condition.
"""

from __future__ import annotations

import ast
import linecache
import os
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, replace
from types import CodeType, FrameType, ModuleType, TracebackType

from jax_nbhelp.core.model import Check, CheckPart
from jax_nbhelp.diagnosis.line_values import describe
from jax_nbhelp.diagnosis.provenance import is_jax_file
from jax_nbhelp.diagnosis.safe_eval import CANNOT, Evaluator, library_type

# A function whose name starts so checks its arguments for its caller: the check is the
# caller's, made through it.
_HELPER_PREFIXES = ("_check", "check_", "_try_", "canonicalize", "_canonicalize",
                    "concrete_or_error", "_validate", "validate", "_ensure", "ensure",
                    "_raise", "_unimplemented", "_error", "_complain", "_assert")
_RERAISERS = frozenset({"reraise_with_filtered_traceback"})
_MAX_CLIMB = 3  # helpers climbed out of, at most
_MAX_PARTS = 8
_MAX_VALUE = 80  # characters of one value's summary
# JAX's types whose str() is a plain description, computed from data it holds
_PRINTABLE = frozenset({"PyTreeDef", "ShapedArray", "PartitionSpec", "AbstractMesh"})


@dataclass
class RaisedAt:
    """Where JAX raised, live (never kept: it holds frames)."""

    check: Check
    frames: list[TracebackType]  # the traceback entries, outermost first
    index: int  # of the entry that raised (or called what raised)
    names: frozenset[str]  # the names the condition reads


# -- the source of one function, parsed once ----------------------------------------------

_TREES: dict[tuple[str, int], tuple[float, ast.AST | None, dict[int, ast.AST]]] = {}


def _mtime(filename: str) -> float:
    try:
        return os.stat(filename).st_mtime
    except OSError:
        return -1.0


def function_tree(code: CodeType) -> tuple[ast.AST | None, dict[int, ast.AST]]:
    """The AST of the function (or module) ``code`` runs, with each node's parent by id:
    only that function's lines are parsed, so the cost does not grow with the file."""
    filename = code.co_filename
    key = (filename, code.co_firstlineno)
    mtime = _mtime(filename)
    cached = _TREES.get(key)
    if cached is not None and cached[0] == mtime:
        return cached[1], cached[2]
    tree = _parse_function(code)
    parents: dict[int, ast.AST] = {}
    if tree is not None:
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
    if len(_TREES) > 512:
        _TREES.clear()
    _TREES[key] = (mtime, tree, parents)
    return tree, parents


def _parse_function(code: CodeType) -> ast.AST | None:
    lines = linecache.getlines(code.co_filename)
    if not lines:
        return None
    first = code.co_firstlineno
    if code.co_name == "<module>":
        return _parse("".join(lines), 0)
    numbers = [line for _, _, line in code.co_lines() if line is not None]
    last = max(numbers, default=first)
    # the code's last line may be inside a statement that goes on (a closing bracket)
    for extra in (0, 2, 6, 20, 60):
        stop = min(len(lines), last + extra)
        tree = _parse(textwrap.dedent("".join(lines[first - 1:stop])), first - 1)
        if tree is not None:
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                    return node
            return tree
        if stop == len(lines):
            break
    return None


def _parse(text: str, offset: int) -> ast.Module | None:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    if offset:
        ast.increment_lineno(tree, offset)
    return tree


def _statement(tree: ast.AST, lineno: int) -> ast.AST | None:
    """The innermost statement spanning ``lineno``; where the line is in a compound
    statement's header (an ``if``'s test), that header expression."""
    best: ast.stmt | None = None
    for node in ast.walk(tree):
        if (isinstance(node, ast.stmt) and node.lineno <= lineno <= (node.end_lineno or 0)
                and not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef
                                   | ast.ClassDef)
                and (best is None or node.lineno >= best.lineno)):
            best = node
    for field in ("test", "iter", "items"):
        header = getattr(best, field, None)
        for part in header if isinstance(header, list) else [header]:
            expression = getattr(part, "context_expr", part)
            if isinstance(expression, ast.expr) and (
                    expression.lineno <= lineno <= (expression.end_lineno or 0)):
                return expression
    return best


# -- the guard ----------------------------------------------------------------------------

@dataclass(frozen=True)
class _Guard:
    kind: str  # "if", "else", "assert", "raise", "call", "except"
    tests: tuple[ast.expr, ...]  # the conditions that decided
    truth: bool  # what the tests were: True (if), False (else, assert)
    condition: str
    requirement: str | None
    line: int | None = None  # where the check is, when not at the raise (a flag's origin)


_INVERSE: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt,
    ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
    ast.In: ast.NotIn, ast.NotIn: ast.In,
}


def negation(test: ast.expr) -> ast.expr | None:
    """``test`` negated where that reads simply (``not x`` -> ``x``, ``a != b`` -> ``a ==
    b``, ``a or b`` -> ``not a and not b``); None where it would not."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        return ast.Compare(test.left, [_INVERSE[type(test.ops[0])]()], test.comparators)
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) and len(test.values) <= 3:
        parts = [negation(value) for value in test.values]
        if all(part is not None for part in parts):
            return ast.BoolOp(ast.And(), parts)  # type: ignore[arg-type]
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) and all(
            _presence(value) for value in test.values[:-1]):
        # ``pad_width and not all(...)``, ``isinstance(a, tuple) and len(a) != n``: the
        # leading parts say when the check applies; the last is what is required
        return negation(test.values[-1])
    if isinstance(test, ast.Call | ast.Name | ast.Attribute):
        return ast.UnaryOp(ast.Not(), test)
    return None


def _presence(test: ast.expr) -> bool:
    """A part of a condition that says when a check applies rather than what it requires:
    a value's presence, its type."""
    if isinstance(test, ast.Name | ast.Attribute):
        return True
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(
            test.ops[0], ast.Is | ast.IsNot):
        return True
    return isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id in (
        "isinstance", "hasattr", "callable")


def _unparse(node: ast.AST) -> str:
    return " ".join(ast.unparse(node).split())


def _guard(statement: ast.AST, parents: dict[int, ast.AST]) -> _Guard:
    if isinstance(statement, ast.Assert):
        return _Guard("assert", (statement.test,), False, _unparse(statement.test),
                      _unparse(statement.test))
    if not isinstance(statement, ast.Raise):
        return _Guard("call", (), True, _unparse(statement), None)
    return (_enclosing(statement, parents) or _after_try(statement, parents)
            or _Guard("raise", (), True, "", None))


def _after_try(statement: ast.Raise, parents: dict[int, ast.AST]) -> _Guard | None:
    """``try: return convert(x)`` / ``except TypeError: pass`` / ``raise ...``: the raise
    runs when what the ``try`` tried failed, and that is the check."""
    parent = parents.get(id(statement))
    body = getattr(parent, "body", None)
    if not isinstance(body, list) or statement not in body:
        return None
    index = body.index(statement)
    tried = body[index - 1] if index else None
    if not isinstance(tried, ast.Try) or not tried.body or not all(
            all(isinstance(line, ast.Pass) for line in handler.body)
            for handler in tried.handlers):
        return None
    last = tried.body[-1]
    attempt = last.value if isinstance(last, ast.Return | ast.Expr) and last.value else None
    if attempt is None:
        return None
    return _Guard("try", (attempt,), True, _unparse(attempt), None)


def _always_raises(block: list[ast.stmt]) -> bool:
    """Whether every way through ``block`` ends in a ``raise``."""
    last = block[-1] if block else None
    return isinstance(last, ast.Raise) or (
        isinstance(last, ast.If) and _always_raises(last.body) and _always_raises(last.orelse))


def _enclosing(statement: ast.AST, parents: dict[int, ast.AST]) -> _Guard | None:
    """The condition under which ``statement`` runs in its function: the nearest ``if``
    (in its body: its test held; in its ``else``: every test of the ``elif`` chain failed),
    or the ``except`` clause that caught what its ``try`` raised; None at the top. An ``if``
    whose every branch raises only chooses the message (``if len(outs) == 1:`` one wording,
    ``else:`` another): the check is the condition that led there."""
    node: ast.AST = statement
    while (parent := parents.get(id(node))) is not None:
        if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            return None
        if isinstance(parent, ast.ExceptHandler):
            caught = _unparse(parent.type) if parent.type is not None else "an exception"
            return _Guard("except", (), True, caught, None)
        if isinstance(parent, ast.If) and _always_raises(parent.body) \
                and _always_raises(parent.orelse):
            while (above := parents.get(id(parent))) is not None and isinstance(
                    above, ast.If) and len(above.orelse) == 1 and above.orelse[0] is parent:
                parent = above  # the whole elif chain chooses the message
            node = parent
            continue
        if isinstance(parent, ast.If):
            if any(node is child for child in parent.body):
                negated = negation(parent.test)
                return _Guard("if", (parent.test,), True, _unparse(parent.test),
                              _unparse(negated) if negated is not None else None)
            tests = [parent.test]
            outer = parent
            while (above := parents.get(id(outer))) is not None and isinstance(
                    above, ast.If) and len(above.orelse) == 1 and above.orelse[0] is outer:
                tests.insert(0, above.test)
                outer = above
            condition = " and ".join(_unparse(negated) if (negated := negation(test))
                                     is not None else f"not ({_unparse(test)})"
                                     for test in tests)
            requirement = " or ".join(_unparse(test) for test in tests)
            return _Guard("else", tuple(tests), False, condition, requirement)
        node = parent
    return None


def _flag(test: ast.expr) -> str | None:
    """The local a test only reads as a flag: ``dtype is None``, ``dtype is not None``,
    ``not found``, ``found``."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(
            test.ops[0], ast.Is | ast.IsNot) and isinstance(test.comparators[0], ast.Constant) \
            and test.comparators[0].value is None:
        test = test.left
    return test.id if isinstance(test, ast.Name) else None


def _flag_origin(guard: _Guard, statement: ast.AST, tree: ast.AST,
                 parents: dict[int, ast.AST], frame: FrameType) -> _Guard | None:
    """``dtype = None`` in the ``else`` of ``if lower_dtype == upper_dtype:``, later ``if
    dtype is None: raise``: the test reads a flag the function set, and the check that
    decided is the one around the assignment that set it. Only where that assignment is
    certain: the flag is a local (not a parameter) bound only by plain assignments, exactly
    one of them writes the constant the flag holds now, and every other one writes a value
    read in the frame that is not it. None otherwise (the guard stands)."""
    if guard.kind != "if" or len(guard.tests) != 1:
        return None
    name = _flag(guard.tests[0])
    code = frame.f_code
    parameters = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    if name is None or name in parameters or name not in frame.f_locals:
        return None
    live = frame.f_locals[name]
    if not (live is None or live is True or live is False):
        return None
    raise_line = getattr(statement, "lineno", 0)
    evaluate = Evaluator(frame)
    setters: list[ast.Assign] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            assignment = parents.get(id(node))
            if not (isinstance(assignment, ast.Assign) and len(assignment.targets) == 1
                    and assignment.targets[0] is node):
                return None  # bound some other way (a loop, an unpacking, +=): unsure
            if assignment.lineno > raise_line:
                continue
            value = assignment.value
            if isinstance(value, ast.Constant) and value.value is live:
                setters.append(assignment)
            else:
                written = evaluate(value)
                if written is CANNOT or written is live or (
                        isinstance(live, bool) and isinstance(written, bool)):
                    return None
        elif isinstance(node, ast.Global | ast.Nonlocal) and name in node.names:
            return None
    if len(setters) != 1:
        return None
    origin = _enclosing(setters[0], parents)
    if origin is None or origin.kind not in ("if", "else"):
        return None
    return replace(origin, line=origin.tests[-1].lineno)


# -- the parts and their values -------------------------------------------------------------

def _parts(test: ast.expr) -> Iterator[ast.expr]:
    """The sub-expressions of a condition worth a value, outermost first: names, attribute
    and item chains, calls, and the operands of comparisons and arithmetic."""
    if isinstance(test, ast.BoolOp):
        for value in test.values:
            yield from _parts(value)
        return
    if isinstance(test, ast.UnaryOp):
        yield from _parts(test.operand)
        return
    if isinstance(test, ast.Compare):
        for operand in (test.left, *test.comparators):
            yield from _parts(operand)
        return
    if isinstance(test, ast.BinOp):
        yield test
        yield from _parts(test.left)
        yield from _parts(test.right)
        return
    if isinstance(test, ast.Constant) or (isinstance(test, ast.Tuple | ast.List) and all(
            isinstance(element, ast.Constant) for element in test.elts)):
        return  # a literal says nothing the check's text does not
    if isinstance(test, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
        for generator in test.generators:  # what it runs over: ``for d in non_1s[1:]``
            yield from _parts(generator.iter)
        return
    yield test
    if isinstance(test, ast.Call):
        for argument in test.args:
            if not isinstance(argument, ast.Starred):
                yield from _parts(argument)
        for argument in test.args:
            if isinstance(argument, ast.ListComp | ast.SetComp | ast.GeneratorExp):
                yield from _parts(argument)
    elif isinstance(test, ast.Attribute | ast.Subscript):
        base = test.value
        while isinstance(base, ast.Attribute | ast.Subscript):
            base = base.value
        if isinstance(base, ast.Name):
            yield base


def _implied(test: ast.expr, truth: bool, evaluate: Evaluator) -> Iterator[tuple[ast.expr, bool]]:
    """The parts whose truth the raise implies, where they cannot be read."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        yield from _implied(test.operand, not truth, evaluate)
    elif isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) and truth:
        for value in test.values:
            yield from _implied(value, True, evaluate)
    elif isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) and not truth:
        for value in test.values:
            yield from _implied(value, False, evaluate)
    elif evaluate(test) is CANNOT and not isinstance(test, ast.BoolOp):
        yield test, truth


def summary(value: object) -> str:
    """A value as a card shows it: arrays as dtype[shape], within a size budget."""
    numpy = _numpy()
    if numpy is not None and isinstance(value, numpy.dtype):
        return str(value)
    if isinstance(value, type):
        return value.__name__
    if isinstance(value, ModuleType):
        return f"module {value.__name__}"
    described = describe("", value)
    if described.kind in ("array", "tracer", "numpy", "ref"):
        return described.summary
    if type(value) in (int, float, bool, str, type(None), complex) or (
            type(value) in (tuple, list) and len(value) <= 8  # type: ignore[arg-type]
            and all(type(item) in (int, float, bool, str, type(None))
                    or (numpy is not None and isinstance(item, numpy.dtype))
                    for item in value)):  # type: ignore[attr-defined]
        text = repr(value) if type(value) not in (tuple, list) else _sequence(value)
        return text if len(text) <= _MAX_VALUE else text[:_MAX_VALUE - 1] + "…"
    if numpy is not None and isinstance(value, numpy.generic):
        return str(value)[:_MAX_VALUE]
    if type(value) in (tuple, list):
        items: list[object] = list(value)  # type: ignore[call-overload]
        inner = [summary(item) for item in items[:4]]
        more = ", …" if len(items) > 4 else ""
        if type(value) is tuple:
            return f"({', '.join(inner)}{more}{',' if len(items) == 1 else ''})"
        return f"[{', '.join(inner)}{more}]"
    if type(value).__name__ in _PRINTABLE and library_type(type(value)):
        text = str(value)  # JAX's own plain description of a tree or an abstract value
        return text if len(text) <= _MAX_VALUE else text[:_MAX_VALUE - 1] + "…"
    return described.summary


def _sequence(value: object) -> str:
    items: list[object] = list(value)  # type: ignore[call-overload]
    texts = [repr(item) if isinstance(item, str) else str(item) for item in items]
    if type(value) is tuple:
        return f"({', '.join(texts)}{',' if len(texts) == 1 else ''})"
    return f"[{', '.join(texts)}]"


def _numpy() -> ModuleType | None:
    import sys

    return sys.modules.get("numpy")


def _shown(node: ast.expr, value: object, frame: FrameType) -> bool:
    """Whether a part's value says something: not a module, function or class the check
    merely names (``np``, ``dtypes.issubdtype``, ``tuple``, ``np.unsignedinteger``), nor an
    internal object of JAX's with nothing to read; a local name holding a class (a
    ``dtype`` argument given as ``jnp.int8``) is a value."""
    if value is CANNOT or isinstance(value, ModuleType):
        return False
    if isinstance(node, ast.Tuple | ast.List) and all(
            isinstance(element, ast.Name | ast.Attribute) for element in node.elts) \
            and isinstance(value, tuple | list) and all(isinstance(v, type) for v in value):
        return False  # ``(list, tuple)`` in ``isinstance(ans, (list, tuple))``: names
    named = isinstance(node, ast.Attribute) or (isinstance(node, ast.Name)
                                                and node.id not in frame.f_locals)
    if isinstance(value, type):
        return not named
    if callable(value) and describe("", value).kind not in ("array", "tracer", "numpy"):
        return False  # a function: its name in the check says what it is
    return not summary(value).endswith(" object") or not library_type(type(value))


def _read_parts(guard: _Guard, frame: FrameType) -> tuple[CheckPart, ...]:
    """The condition's parts with their values in ``frame``; the implied ones first (what
    the check found), then the values they read."""
    evaluate = Evaluator(frame)
    read: list[CheckPart] = []
    implied: list[CheckPart] = []
    for test in guard.tests:
        for node in _parts(test):
            value = evaluate(node)
            text = _unparse(node)
            if _shown(node, value, frame) and all(part.text != text for part in read):
                read.append(CheckPart(text, summary(value)))
        for node, truth in _implied(test, guard.truth, evaluate):
            text = _unparse(node)
            if all(part.text != text for part in (*read, *implied)):
                implied.append(CheckPart(text, str(truth), implied=True))
    return (*implied, *read)[:_MAX_PARTS]


def _names(guard: _Guard) -> frozenset[str]:
    return frozenset(node.id for test in guard.tests for node in ast.walk(test)
                     if isinstance(node, ast.Name))


# -- the raise ------------------------------------------------------------------------------

def jax_relative(filename: str) -> str:
    """``random/core.py`` for a file under jax/_src, ``jax/numpy/__init__.py`` otherwise."""
    path = filename.replace(os.sep, "/")
    for marker in ("/jax/_src/", "/jaxlib/"):
        if marker in path:
            return path.split(marker, 1)[1] if marker == "/jax/_src/" else (
                "jaxlib/" + path.split(marker, 1)[1])
    if "/jax/" in path:
        return "jax/" + path.rsplit("/jax/", 1)[1]
    return os.path.basename(path)


def _helper(name: str) -> bool:
    return name.startswith(_HELPER_PREFIXES)


def entries(exc: BaseException) -> list[TracebackType]:
    """``exc``'s traceback entries, outermost first."""
    found = []
    tb = exc.__traceback__
    while tb is not None:
        found.append(tb)
        tb = tb.tb_next
    return found


def _innermost_jax(tbs: list[TracebackType]) -> int | None:
    """The index of the innermost entry in JAX's code that is not the traceback filter's
    re-raise (it re-raises every error of an API function: not a check)."""
    return next((i for i in range(len(tbs) - 1, -1, -1)
                 if is_jax_file(tbs[i].tb_frame.f_code.co_filename)
                 and tbs[i].tb_frame.f_code.co_name not in _RERAISERS), None)


def raise_site(exc: BaseException | None) -> str | None:
    """Where JAX raised ``exc`` (or the first exception of its chain JAX's code raised), as
    ``path:function`` under jax/_src: ``lax/lax.py:_try_broadcast_shapes``. Read from the
    frames alone, without parsing anything."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        tbs = entries(exc)
        index = _innermost_jax(tbs)
        if index is not None:
            code = tbs[index].tb_frame.f_code
            return f"{jax_relative(code.co_filename)}:{code.co_name}"
        exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    return None


def raised_at(exc: BaseException) -> RaisedAt | None:
    """The check JAX made before raising ``exc`` (its own traceback: the innermost JAX
    frame, which raised it or called the code that did); None when no JAX frame shows."""
    tbs = entries(exc)
    index = _innermost_jax(tbs)
    if index is None:
        return None
    raised_here = index == len(tbs) - 1
    found = _check_at(tbs[index], raised_here)
    if found is None:
        return None
    guard, frame, asked_by = found
    climbed = 0
    # a helper's check (or a function that only raises) is asked for by its caller
    while (climbed < _MAX_CLIMB and index > 0
           and (guard.kind == "raise" or _helper(frame.f_code.co_name))
           and is_jax_file(tbs[index - 1].tb_frame.f_code.co_filename)):
        caller = tbs[index - 1]
        call = _check_at(caller, False)
        if call is None:
            break
        asked_by = (f"{caller.tb_frame.f_code.co_name}: {call[0].condition}"
                    if call[0].kind == "call" else caller.tb_frame.f_code.co_name)
        if guard.kind != "raise":
            break
        # an unconditional raise: the caller's guard around the call is the check
        outer = _check_at(caller, False, guard_of_call=True)
        if outer is None or outer[0].kind == "call":
            break
        guard, frame = outer[0], outer[1]
        index -= 1
        climbed += 1
    parts = _read_parts(guard, frame)
    code = frame.f_code
    check = Check(kind=guard.kind,  # type: ignore[arg-type]
                  condition=guard.condition, requirement=guard.requirement,
                  file=jax_relative(code.co_filename), line=guard.line or tbs[index].tb_lineno,
                  function=code.co_name, parts=parts, asked_by=asked_by)
    return RaisedAt(check, tbs, index, _names(guard))


def _check_at(entry: TracebackType, raised_here: bool, guard_of_call: bool = False
              ) -> tuple[_Guard, FrameType, str] | None:
    """The guard of the statement ``entry`` was at: the raise's, where it raised; the call's
    own text, where it called what raised; with ``guard_of_call``, the condition under which
    that call ran (the callee raises whenever it is called)."""
    frame = entry.tb_frame
    tree, parents = function_tree(frame.f_code)
    if tree is None:
        return None
    statement = _statement(tree, entry.tb_lineno)
    if statement is None:
        return None
    if guard_of_call:
        guard = _enclosing(statement, parents)
        return (guard, frame, "") if guard is not None else None
    if raised_here or isinstance(statement, ast.Raise | ast.Assert):
        # (a raise statement can call what raised: its message's formatting)
        guard = _guard(statement, parents)
        return _flag_origin(guard, statement, tree, parents, frame) or guard, frame, ""
    return _Guard("call", (), True, _unparse(statement), None), frame, ""


