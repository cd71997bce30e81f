"""A cell as its top-level statements: the lines each spans, the names it binds and reads.

A fix must re-run exactly what the error interrupted and what a rewrite changed, never a
statement that already ran (``step += 1``, a PRNG split, a data load). That is decided here,
statically, from the cell's source (IPython syntax escaped first, so lines keep their
numbers), in the spirit of a dataflow kernel: each top-level statement knows the names it
binds, the names it reads when it runs, and whether running it twice would change state.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)
# Cell magics whose body IPython compiles as Python with the body's own line numbers
# (``<timed exec>``), so a fix can resume inside the body. Other cell magics run as one piece.
RESUMABLE_CELL_MAGICS = frozenset({"time"})


def cell_scope_statements(body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements that run at cell scope, into the bodies of if/for/while/with/try."""
    for stmt in body:
        if isinstance(stmt, COMPOUND):
            yield stmt
            for part in ("body", "orelse", "finalbody"):
                yield from cell_scope_statements(getattr(stmt, part, []))
            for handler in getattr(stmt, "handlers", []):
                yield from cell_scope_statements(handler.body)
        else:
            yield stmt


def target_names(target: ast.AST) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            yield from target_names(element)
    elif isinstance(target, ast.Starred):
        yield from target_names(target.value)


def bound_names(stmt: ast.stmt) -> Iterator[str]:
    """Names one statement binds in the namespace it runs in (not nested statements)."""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield stmt.name
    elif isinstance(stmt, ast.Assign):
        for target in stmt.targets:
            yield from target_names(target)
    elif isinstance(stmt, ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor):
        yield from target_names(stmt.target)
    elif isinstance(stmt, ast.With | ast.AsyncWith):
        for item in stmt.items:
            if item.optional_vars is not None:
                yield from target_names(item.optional_vars)
    elif isinstance(stmt, ast.Import | ast.ImportFrom):
        for alias in stmt.names:
            yield (alias.asname or alias.name).split(".")[0]
    if not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        for node in ast.walk(stmt):
            if isinstance(node, ast.NamedExpr):
                yield from target_names(node.target)


class NameWalker(ast.NodeVisitor):
    """Names a piece of code loads, each marked eager (read when it runs) or lazy (read when a
    function it defines is called); also every call, with the same mark."""

    def __init__(self, eager: bool) -> None:
        self.eager = eager
        self.names: list[tuple[str, bool]] = []
        self.calls: list[tuple[ast.Call, bool]] = []
        self.local: set[str] = set()

    def _later(self, nodes: Iterable[ast.AST], args: ast.arguments | None) -> None:
        saved, saved_local = self.eager, set(self.local)
        self.eager = False
        if args is not None:
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs,
                        *([args.vararg] if args.vararg else []),
                        *([args.kwarg] if args.kwarg else [])]:
                self.local.add(arg.arg)
        for node in nodes:
            self.visit(node)
        self.eager, self.local = saved, saved_local

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        defaults = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
        for item in [*node.decorator_list, *defaults]:
            self.visit(item)
        self.local.add(node.name)
        self._later(node.body, node.args)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._later([node.body], node.args)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load) and not (not self.eager and node.id in self.local):
            self.names.append((node.id, self.eager))
        elif isinstance(node.ctx, ast.Store) and not self.eager:
            self.local.add(node.id)

    def visit_Call(self, node: ast.Call) -> None:
        self.calls.append((node, self.eager))
        self.generic_visit(node)


def walk_names(nodes: Iterable[ast.AST], eager: bool = True) -> NameWalker:
    walker = NameWalker(eager)
    for node in nodes:
        walker.visit(node)
    return walker


@dataclass(frozen=True)
class Statement:
    """One top-level statement of a cell, by the lines it spans (decorators included)."""

    index: int
    first: int  # 1-based line in the cell's raw source
    last: int
    binds: frozenset[str]
    reads: frozenset[str]  # names read when the statement runs (not in function bodies)
    updates: bool  # reads a name it also binds (x += 1, key = split(key)): not repeatable
    compound: bool  # for / while / if / with / try
    summary: str  # what it is, as a user names it: "def scaled", "out = ...", "for loop"
    # a def, class, import or plain assignment that reads none of its targets: running it
    # again only rebinds names (a loop, an augmented assignment or a bare call may do more)
    rebinds_only: bool = False


@dataclass(frozen=True)
class ParsedCell:
    """A cell's raw source and its top-level statements.

    ``cell_magic`` names a leading ``%%magic`` (its line is ``magic_line``). For a resumable
    one (``%%time``) the statements are those of its body; for any other the whole cell is
    one statement, since IPython hands the body to the magic in one piece.
    """

    source: str
    statements: tuple[Statement, ...]
    cell_magic: str | None = None
    magic_line: int = 0

    @property
    def lines(self) -> list[str]:
        return self.source.splitlines(keepends=True)

    def text(self, first: int, last: int) -> str:
        """Lines ``first``..``last`` (1-based, inclusive) exactly as the cell holds them."""
        return "".join(self.lines[first - 1:last])

    def statement_at(self, lineno: int) -> Statement | None:
        """The top-level statement whose lines cover ``lineno``."""
        for stmt in self.statements:
            if stmt.first <= lineno <= stmt.last:
                return stmt
        return None

    @property
    def sliceable(self) -> bool:
        """Whether a fix may run part of this cell (not a cell magic that runs in one piece)."""
        return self.cell_magic is None or self.cell_magic in RESUMABLE_CELL_MAGICS

    @property
    def magic_header(self) -> str:
        """The ``%%magic`` line (with its ending), or "" for a plain cell."""
        return self.text(self.magic_line, self.magic_line) if self.cell_magic else ""


def _summary(stmt: ast.stmt, escaped_lines: list[str], raw_lines: list[str]) -> str:
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
        return f"def {stmt.name}"
    if isinstance(stmt, ast.ClassDef):
        return f"class {stmt.name}"
    if isinstance(stmt, ast.For | ast.AsyncFor):
        return "for loop"
    if isinstance(stmt, ast.While):
        return "while loop"
    if isinstance(stmt, ast.If):
        return "if block"
    if isinstance(stmt, ast.With | ast.AsyncWith):
        return "with block"
    if isinstance(stmt, ast.Try):
        return "try block"
    if isinstance(stmt, ast.Import | ast.ImportFrom):
        return "import"
    targets = list(dict.fromkeys(bound_names(stmt)))
    if isinstance(stmt, ast.AugAssign) and targets:
        return f"{targets[0]} {_OPERATORS.get(type(stmt.op), '')}= ..."
    if isinstance(stmt, ast.Assign | ast.AnnAssign) and targets:
        return f"{', '.join(targets)} = ..."
    # A magic line reads as the user typed it, not as its placeholder.
    lines = raw_lines if stmt.lineno <= len(raw_lines) else escaped_lines
    text = lines[stmt.lineno - 1].strip() if stmt.lineno <= len(lines) else ""
    return text if len(text) <= 40 else text[:37] + "..."


_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
              ast.Mod: "%", ast.Pow: "**", ast.MatMult: "@", ast.BitOr: "|", ast.BitAnd: "&",
              ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>"}
_REBINDING = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom,
              ast.Assign, ast.AnnAssign)


# Methods that only set a custom-derivative function's rules: running them again sets the
# same (or the rewritten) rules on the same object, and repeats nothing else.
_RULE_SETTERS = frozenset({"defvjp", "defjvp", "defjvps"})


def registers_rules(stmt: ast.stmt) -> bool:
    """Whether ``stmt`` is ``f.defvjp(...)`` (or ``defjvp``/``defjvps``) alone."""
    return (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Attribute)
            and stmt.value.func.attr in _RULE_SETTERS
            and isinstance(stmt.value.func.value, ast.Name))


def rebinds_only(stmt: ast.stmt) -> bool:
    """Whether running ``stmt`` again only rebinds names (a def, class, import or plain
    assignment that reads none of its targets), as for ``Statement.rebinds_only``."""
    if registers_rules(stmt):
        return True
    if not isinstance(stmt, _REBINDING):
        return False
    binds = set(bound_names(stmt))
    reads = {name for name, eager in walk_names([stmt], eager=True).names if eager}
    return bool(binds) and not (binds & reads)


def ran_before(source: str, first: int, lineno: int) -> list[ast.stmt] | None:
    """The simple statements of the compound statement starting at line ``first`` of the cell
    that come before line ``lineno`` (what ran of it before that line raised), or None when
    the cell does not parse."""
    from jax_nbhelp.rewrite.magics import escape_magics

    try:
        escaped, _ = escape_magics(source)
        tree = ast.parse(escaped)
    except Exception:
        return None
    node = next((stmt for stmt in tree.body if stmt.lineno == first), None)
    if node is None:
        return None
    inner = [stmt for stmt in cell_scope_statements([node]) if stmt is not node]
    return [stmt for stmt in inner if not isinstance(stmt, COMPOUND)
            and (stmt.end_lineno or stmt.lineno) < lineno]


def _statement(index: int, stmt: ast.stmt, escaped_lines: list[str],
               raw_lines: list[str]) -> Statement:
    first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", []))])
    last = getattr(stmt, "end_lineno", None) or stmt.lineno
    binds = {name for inner in cell_scope_statements([stmt]) for name in bound_names(inner)}
    walker = walk_names([stmt], eager=True)
    reads = {name for name, eager in walker.names if eager}
    augmented = any(isinstance(inner, ast.AugAssign) for inner in cell_scope_statements([stmt]))
    return Statement(
        index=index,
        first=first,
        last=last,
        binds=frozenset(binds),
        reads=frozenset(reads),
        updates=augmented or bool(binds & reads),
        compound=isinstance(stmt, COMPOUND),
        summary=_summary(stmt, escaped_lines, raw_lines),
        rebinds_only=((isinstance(stmt, _REBINDING) and not augmented
                       and not (binds & reads) and bool(binds)) or registers_rules(stmt)),
    )


@lru_cache(maxsize=1024)
def parse_cell(source: str) -> ParsedCell | None:
    """The cell's statements, or None when it is not Python jax_nbhelp can read."""
    try:
        return _parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    except Exception:  # escape_magics refuses bodies that are not Python (CannotRewrite)
        return None


def _parse(source: str) -> ParsedCell | None:
    from jax_nbhelp.rewrite.magics import escape_magics, leading_cell_magic

    found = leading_cell_magic(source.splitlines())
    magic = (found[1], found[0] + 1) if found is not None else None  # (name, 1-based line)
    if magic is not None and magic[0] not in RESUMABLE_CELL_MAGICS:
        count = len(source.splitlines()) or 1
        whole = Statement(0, magic[1], count, frozenset(), frozenset(), updates=True,
                          compound=True, summary=f"%%{magic[0]} cell")
        return ParsedCell(source, (whole,), magic[0], magic[1])
    escaped, _ = escape_magics(source)
    tree = ast.parse(escaped)
    lines = escaped.splitlines()
    body = list(tree.body)
    if magic is not None:
        body = [stmt for stmt in body if stmt.lineno != magic[1]]
    raw_lines = source.splitlines()
    statements = tuple(_statement(i, stmt, lines, raw_lines) for i, stmt in enumerate(body))
    if magic is not None:
        return ParsedCell(source, statements, magic[0], magic[1])
    return ParsedCell(source, statements)
