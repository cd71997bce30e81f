"""libcst plumbing shared by the rewrites: locating calls by line, argument surgery."""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ._lines import split_lines, unparsable_message
from .errors import CannotRewrite


@dataclass(frozen=True)
class CallSite:
    """A call in the module, with its line range and the calls around it."""

    node: cst.Call
    first_line: int
    last_line: int
    enclosing: tuple[cst.Call, ...]  # outermost first

    def covers(self, lineno: int) -> bool:
        return self.first_line <= lineno <= self.last_line


class _InOrder(cst.CSTVisitor):
    """Every call (with the calls around it) and every ``def``, in the order of the source."""

    def __init__(self) -> None:
        self.calls: list[tuple[cst.Call, tuple[cst.Call, ...]]] = []
        self.functions: list[cst.FunctionDef] = []
        self._stack: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append((node, tuple(self._stack)))
        self._stack.append(node)

    def leave_Call(self, original_node: cst.Call) -> None:
        self._stack.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)


def _by_ast(module: cst.Module, found: _InOrder, source: str) -> Located | None:
    """The index with its lines read from Python's own parser, which is many times cheaper than
    libcst's position metadata (a copy of the tree and a code-generation pass): both parsers
    see the same calls and ``def``s, and sorted by where they start (an outer call before one
    that starts where it does) Python's come in libcst's visiting order. None where the two
    do not agree on how many there are."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    spans = sorted((node.lineno, node.col_offset, -(node.end_lineno or node.lineno),
                    -(node.end_col_offset or 0))
                   for node in ast.walk(tree) if isinstance(node, ast.Call))
    defs = sorted((node.lineno, node.col_offset) for node in ast.walk(tree)
                  if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))
    if len(spans) != len(found.calls) or len(defs) != len(found.functions):
        return None
    calls = tuple(CallSite(node, span[0], -span[2], enclosing)
                  for (node, enclosing), span in zip(found.calls, spans, strict=True))
    functions = tuple((line, node)
                      for node, (line, _) in zip(found.functions, defs, strict=True))
    return Located(module, calls, functions)


@dataclass(frozen=True)
class Located:
    """A parsed module plus every call in it, ready for line-based lookups."""

    module: cst.Module
    calls: tuple[CallSite, ...]
    functions: tuple[tuple[int, cst.FunctionDef], ...]

    def calls_at(self, lineno: int) -> list[CallSite]:
        return [site for site in self.calls if site.covers(lineno)]

    def decorator_calls_at(self, lineno: int) -> list[CallSite]:
        """Calls inside the decorators of a function whose ``def`` is on ``lineno``."""
        wanted: set[int] = set()
        for def_line, func in self.functions:
            if def_line == lineno:
                for decorator in func.decorators:
                    wanted.update(id(node) for node in _calls_within(decorator))
        return [site for site in self.calls if id(site.node) in wanted]


class _AllCalls(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.found.append(node)


def _calls_within(node: cst.CSTNode) -> list[cst.Call]:
    collector = _AllCalls()
    node.visit(collector)
    return collector.found


@lru_cache(maxsize=32)
def _index(source: str) -> Located:
    # libcst trees are immutable, so one parse serves every rewrite of the same cell (a
    # notebook hits the same error, in the same helper, again and again).
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as err:
        raise CannotRewrite(unparsable_message(source, err.editor_line)) from None
    found = _InOrder()
    module.visit(found)
    return _by_ast(module, found, source) or _by_metadata(module, found)


def _by_metadata(module: cst.Module, found: _InOrder) -> Located:
    """The index with its lines read from libcst's position metadata (where Python's parser
    and libcst disagree on the calls or ``def``s a source holds). A ``def``'s line is its
    name's: the node itself starts at its decorators."""
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    calls = tuple(CallSite(node, positions[node].start.line, positions[node].end.line,
                           enclosing) for node, enclosing in found.calls)
    functions = tuple((positions[node.name].start.line, node) for node in found.functions)
    return Located(module, calls, functions)


def locate(source: str, lineno: int) -> Located:
    """Parse ``source`` (plain Python) and index its calls by line."""
    line_count = len(split_lines(source)) or 1
    located = _index(source)
    if not 1 <= lineno <= line_count:
        noun = "line" if line_count == 1 else "lines"
        raise CannotRewrite(f"Line {lineno} is outside the code, which has {line_count} {noun}.")
    return located


def innermost(sites: Sequence[CallSite]) -> list[CallSite]:
    """Drop every site that encloses another site in ``sites``."""
    enclosing = {id(outer) for site in sites for outer in site.enclosing}
    return [site for site in sites if id(site.node) not in enclosing]


def dotted_node(dotted: str) -> cst.Attribute | cst.Name:
    """The expression node of a dotted path: ``a.b.c`` as Attribute(Attribute(a, b), c)."""
    parts = dotted.split(".")
    node: cst.Attribute | cst.Name = cst.Name(parts[0])
    for part in parts[1:]:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


def dotted_name(expr: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a chain of names, else None."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        base = dotted_name(expr.value)
        return None if base is None else f"{base}.{expr.attr.value}"
    return None


def parenthesized(value: cst.BaseExpression) -> cst.BaseExpression:
    """``value`` as the right operand of a binary operator (``x + (a - b)``)."""
    simple = (cst.Name, cst.Integer, cst.Float, cst.Attribute, cst.Subscript, cst.Call)
    if isinstance(value, simple) or value.lpar:
        return value
    return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


ChangeCall = Callable[[cst.Call], cst.BaseExpression]


def rewrite_calls(
    module: cst.Module, targets: Sequence[cst.Call], change: ChangeCall
) -> cst.Module:
    """Return ``module`` with ``change`` applied to each call in ``targets`` only."""
    return module.visit(_CallRewriter({id(node) for node in targets}, change))


class _CallRewriter(cst.CSTTransformer):
    def __init__(self, targets: set[int], change: ChangeCall) -> None:
        super().__init__()
        self._targets = targets
        self._change = change

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if id(original_node) in self._targets:
            return self._change(updated_node)
        return updated_node


class CountingTransformer(cst.CSTTransformer):
    """A transformer that counts what it changed (``changed``), for :func:`transform`."""

    def __init__(self) -> None:
        super().__init__()
        self.changed = 0


class LineTransformer(CountingTransformer):
    """A counting transformer about one line of the code (``lineno``, 1-based); it may
    refuse the rewrite with a sentence (``refusal``) when it finds what it cannot change."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, lineno: int) -> None:
        super().__init__()
        self.lineno = lineno
        self.refusal: str | None = None

    def spans(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` covers the line (False for a node the parse did not place)."""
        position = self.get_metadata(PositionProvider, node, None)
        return position is not None and position.start.line <= self.lineno <= position.end.line

    def starts(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` begins on the line."""
        position = self.get_metadata(PositionProvider, node, None)
        return position is not None and position.start.line == self.lineno


def transform(code: str, transformer: CountingTransformer, nothing: str, *,
              once: bool = False) -> cst.Module:
    """``code`` parsed and rewritten by ``transformer``; refused with the transformer's own
    refusal, or with ``nothing`` when it changed nothing (with ``once``: when it did not
    change exactly one thing), or when the code does not parse."""
    try:
        module = cst.parse_module(code)
    except cst.ParserSyntaxError:
        raise CannotRewrite("The cell is not valid Python, so it can't be rewritten.") from None
    if isinstance(transformer, LineTransformer):
        fixed = MetadataWrapper(module).visit(transformer)
    else:
        fixed = module.visit(transformer)
    refusal = getattr(transformer, "refusal", None)
    if refusal is not None:
        raise CannotRewrite(refusal)
    if not transformer.changed or (once and transformer.changed != 1):
        raise CannotRewrite(nothing)
    return fixed
