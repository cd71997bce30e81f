"""Which notebook cells built the kernel a failing cell calls, so a fix can rebuild it.

``pl.pallas_call(...)``, ``pl.kernel(...)`` and ``core_map`` read the global interpret switch
when they BUILD the kernel callable. A kernel built at cell scope in an earlier cell keeps
the mode it was built with, so re-running only the failing cell under the switch changes
nothing: the cells that built it must run again, and so must every cell that captured the
built object (``g = jax.jit(f)``). A kernel built inside a function body is rebuilt when the
function is traced again, so that function's cell need not run.

The analysis is static (Python's ``ast`` on the cells' source, IPython syntax escaped first):
starting from the names the failing cell uses, each name is resolved to the latest cell that
bound it, and followed through the expressions that were evaluated when it was bound.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.fix.cell_statements import (
    NameWalker,
    bound_names,
    cell_scope_statements,
    walk_names,
)

_ALWAYS = frozenset({"pallas_call", "core_map"})
_MAX_STEPS = 400


@dataclass(frozen=True)
class Site:
    """A call that builds a Pallas kernel: ``pl.pallas_call(...)``, ``partial(pl.kernel, ...)``."""

    cell: int
    lineno: int
    end_lineno: int
    constructor: str  # dotted name as written: "pl.pallas_call", "plgpu.kernel"
    eager: bool  # runs when the cell runs (cell scope), not when a function is called
    text: str  # the call's source, for per-site checks (which mesh it is given)

    @property
    def is_mesh_kernel(self) -> bool:
        """``pl.kernel`` / ``core_map`` / ``plgpu.kernel``: a kernel over a mesh, not a grid."""
        return self.constructor.rsplit(".", 1)[-1] != "pallas_call"


@dataclass(frozen=True)
class KernelPlan:
    """What to re-run before the failing cell, and the kernel-building calls that were found."""

    reruns: tuple[int, ...] = ()  # earlier cells, in execution order
    sites: tuple[Site, ...] = ()
    imported: tuple[str, ...] = ()  # names the failing code uses that come from imports
    # the statements to run again: (cell, line, why), the failing cell's own included
    statements: tuple[tuple[int, int, str], ...] = ()

    def touch(self) -> dict[int, dict[int, str]]:
        """``statements`` as ``fix_builders.rerun_fix`` takes them: cell -> {line: why}."""
        found: dict[int, dict[int, str]] = {}
        for cell, line, why in self.statements:
            found.setdefault(cell, {}).setdefault(line, why)
        return found


def is_constructor_name(name: str | None) -> bool:
    if not name:
        return False
    last = name.rsplit(".", 1)[-1]
    # A bare `kernel` is too common a name to assume; `pl.kernel` / `plgpu.kernel` are clear.
    return last in _ALWAYS or (last == "kernel" and "." in name)


def constructor_of(call: ast.Call) -> str | None:
    """The Pallas constructor a call builds a kernel with, directly or through partial."""
    name = dotted(call.func)
    if is_constructor_name(name):
        return name
    if name is not None and name.rsplit(".", 1)[-1] == "partial" and call.args:
        inner = dotted(call.args[0])
        if is_constructor_name(inner):
            return inner
    return None


@dataclass
class _Cell:
    number: int
    source: str
    escaped: str  # the source with IPython syntax replaced by placeholders, same lines
    tree: ast.Module
    # name -> statements at cell scope that bind it, in order
    bindings: dict[str, list[ast.stmt]] = field(default_factory=dict)


def _parse(number: int, source: str) -> _Cell | None:
    try:
        from jax_nbhelp.rewrite.magics import escape_magics

        escaped, _ = escape_magics(source)
        tree = ast.parse(escaped)
    except Exception:
        return None
    return _with_body(_Cell(number, source, escaped, tree), tree.body)


def _with_body(cell: _Cell, body: list[ast.stmt]) -> _Cell:
    """``cell`` reduced to the top-level statements ``body``, with their bindings."""
    part = _Cell(cell.number, cell.source, cell.escaped, ast.Module(body=body, type_ignores=[]))
    for stmt in cell_scope_statements(body):
        for name in bound_names(stmt):
            part.bindings.setdefault(name, []).append(stmt)
    return part


def _eager_and_lazy(stmt: ast.stmt) -> tuple[list[ast.AST], list[ast.AST]]:
    """The parts of ``stmt`` evaluated when the cell runs, and the function bodies it defines."""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
        defaults: list[ast.AST] = [*stmt.args.defaults,
                                   *(d for d in stmt.args.kw_defaults if d is not None)]
        return [*stmt.decorator_list, *defaults], list(stmt.body)
    if isinstance(stmt, ast.If | ast.While):
        return [stmt.test], []
    if isinstance(stmt, ast.For | ast.AsyncFor):
        return [stmt.iter], []
    if isinstance(stmt, ast.With | ast.AsyncWith):
        return [item.context_expr for item in stmt.items], []
    if isinstance(stmt, ast.Try):
        return [], []
    return [stmt], []


KernelCall = tuple[ast.Call, str, bool]  # the call, its constructor, whether it runs now


def _walk(nodes: Iterable[ast.AST], eager: bool) -> tuple[NameWalker, list[KernelCall]]:
    """Names loaded (see ``NameWalker``), and the calls among them that build kernels."""
    walker = walk_names(nodes, eager)
    calls = [(call, name, call_eager) for call, call_eager in walker.calls
             if (name := constructor_of(call)) is not None]
    return walker, calls


# A statement to run again: (cell, its first line, why).
Rerun = tuple[int, int, str]
BUILDS = "builds the kernel"
CAPTURES = "captures the kernel"


class _Planner:
    def __init__(self, cells: dict[int, _Cell], failing: _Cell) -> None:
        self.cells = cells
        self.failing = failing
        # The failing cell's statements before the one that raised are in ``cells`` under
        # its own number; names the resumed part reads are looked up up to and including it.
        self.horizon = failing.number + 1
        self.order = sorted(cells)
        self.memo: dict[tuple[str, int], frozenset[Rerun]] = {}
        self.sites: dict[tuple[int, int, str], Site] = {}
        self.imported: set[str] = set()
        self.steps = 0

    def binding(self, name: str, before: int) -> tuple[_Cell, list[ast.stmt]] | None:
        for number in reversed(self.order):
            if number < before and name in self.cells[number].bindings:
                return self.cells[number], self.cells[number].bindings[name]
        return None

    def _site(self, cell: _Cell, call: ast.Call, name: str, eager: bool) -> None:
        end = getattr(call, "end_lineno", None) or call.lineno
        text = ast.get_source_segment(cell.escaped, call) or ""
        key = (cell.number, call.lineno, name)
        if key not in self.sites:
            self.sites[key] = Site(cell.number, call.lineno, end, name, eager, text)

    def statement(self, cell: _Cell, stmt: ast.stmt) -> tuple[str | None, set[Rerun]]:
        """(why running ``stmt`` again rebuilds something, or None; the other statements
        needed)."""
        eager_nodes, lazy_nodes = _eager_and_lazy(stmt)
        why: str | None = None
        needed: set[Rerun] = set()
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            return None, needed
        for nodes, eager in ((eager_nodes, True), (lazy_nodes, False)):
            walker, calls = _walk(nodes, eager)
            for call, name, call_eager in calls:
                self._site(cell, call, name, call_eager)
                if call_eager:
                    why = BUILDS
            before = cell.number if cell is not self.failing else self.horizon
            if why is None and any(call_eager and self.builds_when_called(call, before)
                                   for call, call_eager in walker.calls):
                why = BUILDS  # `k = make_kernel()`: the function builds it as it is called
            for loaded, loaded_eager in walker.names:
                # A value captured now was looked up when this cell ran; a name in a
                # function body is looked up when the function runs (now: the latest).
                before = cell.number if loaded_eager and cell is not self.failing \
                    else self.horizon
                if cell is self.failing and loaded in cell.bindings:
                    continue  # rebuilt by re-running the failing cell itself
                earlier = [s for s in cell.bindings.get(loaded, ()) if s.lineno < stmt.lineno]
                if loaded_eager and cell is not self.failing and earlier:
                    # bound by an earlier statement of the same cell: `call = partial(...)`
                    # then `add = call(kernel)`
                    stale = self.stale_statements(cell, earlier[-1:], (loaded, cell.number,
                                                                        stmt.lineno))
                else:
                    stale = self.stale(loaded, before)
                needed |= stale
                if stale and loaded_eager and why is None:
                    why = CAPTURES
        return why, needed

    def builds_when_called(self, call: ast.Call, before: int, depth: int = 0) -> bool:
        """Whether ``call`` calls a function of the user's whose body builds a kernel (then
        the call builds it, as it runs), directly or through such functions it calls."""
        if depth > 3 or not isinstance(call.func, ast.Name):
            return False
        found = self.binding(call.func.id, before)
        if found is None:
            return False
        _, statements = found
        for stmt in statements:
            if not isinstance(stmt, ast.FunctionDef):
                continue
            walker, calls = _walk(stmt.body, True)
            if calls or any(self.builds_when_called(inner, self.horizon, depth + 1)
                            for inner, _ in walker.calls):
                return True
        return False

    def stale(self, name: str, before: int) -> frozenset[Rerun]:
        """The statements to re-run so that ``name`` (as seen before cell ``before``) is
        rebuilt."""
        key = (name, before)
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = frozenset()  # cycles resolve to "nothing more"
        self.steps += 1
        if self.steps > _MAX_STEPS:
            return frozenset()
        found = self.binding(name, before)
        if found is None:
            return frozenset()
        cell, statements = found
        self.memo[key] = self._reruns(cell, statements, name)
        return self.memo[key]

    def stale_statements(self, cell: _Cell, statements: list[ast.stmt],
                         key: tuple[str, int, int]) -> frozenset[Rerun]:
        """``stale`` for a name bound by ``statements`` of ``cell`` (a binding earlier in
        the cell that reads it)."""
        memo = (f"{key[0]}@{key[2]}", key[1])
        if memo not in self.memo:
            self.memo[memo] = frozenset()
            self.memo[memo] = self._reruns(cell, statements, key[0])
        return self.memo[memo]

    def _reruns(self, cell: _Cell, statements: list[ast.stmt], name: str) -> frozenset[Rerun]:
        result: set[Rerun] = set()
        for stmt in statements:
            if isinstance(stmt, ast.Import | ast.ImportFrom):
                self.imported.add(name)
                continue
            why, needed = self.statement(cell, stmt)
            result |= needed
            if why is not None:
                result.add((cell.number, stmt.lineno, why))
        return frozenset(result)

    def plan(self) -> KernelPlan:
        needed: set[Rerun] = set()
        for stmt in cell_scope_statements(self.failing.tree.body):
            if isinstance(stmt, ast.If | ast.For | ast.AsyncFor | ast.While | ast.With
                          | ast.AsyncWith | ast.Try):
                eager_nodes, _ = _eager_and_lazy(stmt)
                walker, _ = _walk(eager_nodes, True)
                for loaded, _eager in walker.names:
                    if loaded not in self.failing.bindings:
                        needed |= self.stale(loaded, self.horizon)
                continue
            _, more = self.statement(self.failing, stmt)
            needed |= more
        sites = sorted(self.sites.values(), key=lambda s: (s.cell, s.lineno))
        cells = sorted({cell for cell, _, _ in needed} - {self.failing.number})
        return KernelPlan(tuple(cells), tuple(sites), tuple(sorted(self.imported)),
                          tuple(sorted(needed)))


def plan_for(failing_cell: int, failing_source: str, history: dict[int, str],
             resume_line: int = 1) -> KernelPlan:
    """The plan for re-running ``failing_source`` (cell ``failing_cell``) from the top-level
    statement at ``resume_line`` with its kernels rebuilt. ``history`` maps earlier execution
    counts to their raw source. Never raises."""
    try:
        whole = _parse(failing_cell, failing_source)
        if whole is None:
            return KernelPlan()
        cells = {
            number: parsed
            for number, source in history.items()
            if number < failing_cell and (parsed := _parse(number, source)) is not None
        }
        body = whole.tree.body
        # Statements that end before the resume line already ran and stay as they are,
        # unless what the resumed part needs was built by one of them.
        split = next((i for i, stmt in enumerate(body)
                      if (getattr(stmt, "end_lineno", None) or stmt.lineno) >= resume_line),
                     len(body))
        if split:
            cells[failing_cell] = _with_body(whole, body[:split])
        return _Planner(cells, _with_body(whole, body[split:])).plan()
    except RecursionError:
        return KernelPlan()


def sites_at(cell: int, source: str, lineno: int) -> tuple[Site, ...]:
    """Kernel-building calls that cover ``lineno`` of a cell (for a traceback's line)."""
    parsed = _parse(cell, source)
    if parsed is None:
        return ()
    found = []
    for node in ast.walk(parsed.tree):
        if isinstance(node, ast.Call):
            name = constructor_of(node)
            end = getattr(node, "end_lineno", None) or node.lineno
            if name is not None and node.lineno <= lineno <= end:
                text = ast.get_source_segment(parsed.escaped, node) or ""
                found.append(Site(cell, node.lineno, end, name, False, text))
    return tuple(found)


def history(shell: Any, before: int) -> dict[int, str]:
    """Raw source of the cells executed before ``before`` (by execution count)."""
    raw = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
    if not isinstance(raw, list):
        return {}
    return {n: src for n, src in enumerate(raw[:before]) if n > 0 and isinstance(src, str)}
