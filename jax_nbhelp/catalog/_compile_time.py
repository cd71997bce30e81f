"""Values a traced function computes with JAX from values known before the trace (JNH303's
case of a size, a count or a pad table that JAX made a tracer).

Under ``jax.jit`` every JAX operation returns a tracer, even when all its inputs are Python
numbers, closed-over constants or static arguments: ``n = jnp.ceil((t1 - t0) / dt)``, then
``jnp.linspace(t0, t1, n + 1)`` fails for want of a concrete ``n``. Inside ``with
jax.ensure_compile_time_eval():`` JAX runs operations on known values right away (and still
traces those on tracers), so the same statements give the same values, concrete.

Read without running anything: the statements of the traced function that assign what the
failing line reads, followed back to their inputs; each input that is not assigned there
(a parameter, a global, a closed-over name) must hold no tracer in the function's live
frame. The statements must sit in the function's own body, one after another, so that one
``with`` block holds them and the failing statement (whose own arithmetic on them is a JAX
operation too).

Reports: jax-ml/jax#5208 (a grid's point count from ``jnp.ceil`` of constants),
jax-ml/jax#3620 (a pad table built with ``jnp.zeros`` and ``.at[].set``), jax-ml/jax#4798
(``jnp.minimum`` of concrete values feeding ``jnp.arange``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from types import FrameType

from jax_nbhelp.catalog import _provenance, _scopes, _tracing
from jax_nbhelp.core.model import Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.fix.fix_builders import rewrite_fix
from jax_nbhelp.rewrite.errors import CannotRewrite


@dataclass(frozen=True)
class KnownBeforeTrace:
    names: tuple[str, ...]  # what the failing line reads that JAX made a tracer
    first: int  # the block of statements that compute them: first and last line
    last: int


# JAX's provenance for a value that no input made a tracer (0.8 to 0.10)
_FROM_OPERATIONS = "This value became a tracer due to JAX operations"


def _chain(name: str, assigned: dict[str, list[ast.stmt]], frame: FrameType
           ) -> set[ast.stmt] | None:
    """The assignments that compute ``name``, followed back to inputs assigned elsewhere;
    None where one of those inputs holds a tracer, or a binding is not an assignment."""
    needed: set[ast.stmt] = set()
    todo, seen = [name], set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        if current not in assigned:
            if _provenance.holds_tracer(frame.f_locals.get(current,
                                                           frame.f_globals.get(current))):
                return None  # computed from a traced input: no value before the trace
            continue
        for node in assigned[current]:
            if not isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
                return None
            needed.add(node)
            todo += _inputs(node)
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                todo.append(node.target.id)
    return needed


_STATIC = frozenset({"shape", "ndim", "size", "dtype"})  # known of a tracer too


def _inputs(node: ast.AST) -> list[str]:
    """The names a statement reads, but for a name read only for its shape, rank, size or
    dtype (``batch.ndim``), which jit knows of a traced array too."""
    static = {id(a.value) for a in ast.walk(node) if isinstance(a, ast.Attribute)
              and a.attr in _STATIC and isinstance(a.value, ast.Name)}
    return [n.id for n in ast.walk(node) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Load) and id(n) not in static]


def find(ctx: ErrorContext, location: Location | None) -> KnownBeforeTrace | None:
    """The statements that compute the failing line's traced names from known values."""
    parsed = _tracing.parse(location.source) if location is not None else None
    frame = ctx.live_frame(location) if location is not None else None
    if location is None or parsed is None or frame is None:
        return None
    tree = parsed[0]
    function = _scopes.enclosing_function(tree, location.lineno)
    if function is None or isinstance(function, ast.Lambda):
        return None
    body = function.body
    statement = next((s for s in body if s.lineno <= location.lineno <= (s.end_lineno or 0)),
                     None)
    if statement is None or isinstance(statement, ast.With | ast.Try):
        return None
    before = body[:body.index(statement)]
    assigned: dict[str, list[ast.stmt]] = {}
    for node in before:
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        assigned.setdefault(name.id, []).append(node)
        else:
            for n in ast.walk(node):  # bound in a loop, a branch, a with: not followed
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    assigned.setdefault(n.id, []).append(node)
    local = frame.f_locals
    # the names the failing line reads (of a loop or a branch, its header's)
    header = [getattr(statement, part) for part in ("iter", "test") if hasattr(statement, part)]
    read = {n.id for node in (header or [statement]) for n in ast.walk(node)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    traced = sorted(name for name in read if _provenance.traced(local.get(name)))
    chains = {name: _chain(name, assigned, frame) for name in traced if name in assigned}
    known = sorted(name for name, chain in chains.items() if chain is not None)
    if not known or (len(known) < len(traced) and _FROM_OPERATIONS not in ctx.top.message):
        return None  # a traced input on the line too, and JAX's message does not say the
        # value it needed was made by operations on known values
    needed = {node for name in known for node in chains[name] or ()}
    # the failing line is in the block too: its own arithmetic on them (`n + 1`) is a JAX
    # operation that would make a tracer again
    first = min(body.index(node) for node in needed)
    return KnownBeforeTrace(tuple(known), body[first].lineno,
                            statement.end_lineno or statement.lineno)


def fix(ctx: ErrorContext, location: Location, known: KnownBeforeTrace) -> Fix | None:
    """Run the block that computes them under ``jax.ensure_compile_time_eval()``."""
    from jax_nbhelp.jaxapi.jax_probe import attribute

    jax = ctx.alias("jax")
    if jax is None or attribute("jax", "ensure_compile_time_eval") is None:
        return None
    first, last = known.first, known.last
    names = _tracing.quoted(list(known.names))

    def transform(source: str) -> str:
        lines = source.split("\n")
        if last > len(lines):
            raise CannotRewrite(f"lines {first} to {last} are gone")
        block = lines[first - 1:last]
        indent = block[0][:len(block[0]) - len(block[0].lstrip())]
        if not block[0].strip() or any(line.strip() and not line.startswith(indent)
                                       for line in block):
            raise CannotRewrite(f"lines {first} to {last} are not one block")
        wrapped = [f"{indent}with {jax}.ensure_compile_time_eval():",
                   *[("    " + line) if line.strip() else line for line in block]]
        return "\n".join([*lines[:first - 1], *wrapped, *lines[last:]])

    span = f"line {first}" if first == last else f"lines {first} to {last}"
    return rewrite_fix(
        ctx, location, transform,
        label="Compute them before the trace" if len(known.names) > 1
        else f"Compute {known.names[0]} before the trace",
        summary=(f"Put {span} in `with {jax}.ensure_compile_time_eval():`, so that JAX runs "
                 f"the operations that compute {names} right away, on values known before the "
                 "trace; then re-run."),
        safety=(f"Same values: the same JAX operations compute {names}, from the same "
                "inputs; they run when the function is traced instead of inside the "
                "compiled program, so JAX has their values."),
        safe=True)


def explained(ctx: ErrorContext, location: Location | None, subject: str, function: str,
              needs: str) -> tuple[str, Fix] | None:
    """The card's sentence and fix where the failing line's traced values are computed
    from values known before the trace; None where they are not, or no fix applies."""
    known = find(ctx, location) if location is not None else None
    made = fix(ctx, location, known) if known is not None and location is not None else None
    if known is None or made is None:
        return None
    names = _tracing.quoted(list(known.names))
    return (f"{subject} needs {needs}, but {names} {'is' if len(known.names) == 1 else 'are'} "
            f"computed inside {function} by JAX operations from values known before the "
            "trace, and under jit every JAX operation returns a tracer.", made)
