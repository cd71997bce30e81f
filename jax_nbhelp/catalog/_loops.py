"""Python loops written as the loops JAX compiles: what ``JNH302`` (a ``for`` loop over
``range(n)`` whose bound is traced, as ``lax.fori_loop``) and ``JNH301`` (a ``while`` loop on
a traced condition, as ``lax.while_loop``) share: the names a loop carries, and its body's
lines moved into a function.

``for _ in range(state.steps): state = step(state)`` under ``jax.jit`` needs ``state.steps``
as a Python int when the function is traced; ``lax.fori_loop(0, state.steps, body, state)``
runs ``body(i, carry)`` once per step of the compiled program instead. The loop becomes

    def loop_body(_, state):
        state = step(state)
        return state
    state = lax.fori_loop(0, state.steps, loop_body, state)

with the body's statements as they were. That is the same computation where the body is
assignments to names only (no ``break``, ``continue``, ``return``, call for its effect or
store into a container: a Python effect runs once when JAX traces the body, not once per
step), the names it carries from step to step (assigned in the body, bound before the loop)
are the carry, no name the body only uses within a step is read after the loop (it would be
the last step's), and nothing differentiates the function in reverse (a fori_loop with a
traced bound is a ``while_loop``, which reverse mode cannot differentiate). The steps run in
order on the same values, but XLA compiles one loop body instead of the unrolled steps and
may round across them differently: the card says "up to float rounding".

Reports: waymo-research/waymax#14 (a replay of a log's remaining steps, counted by a traced
field, in a Python loop under jit), jax-ml/jax#1406 (``for _ in range(num)`` under jit, the
same error in its older words).
"""

from __future__ import annotations

import ast
from dataclasses import replace

from jax_nbhelp.catalog import _scopes, _tracing
from jax_nbhelp.core.model import Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.fix.fix_builders import rewrite_fix

_EFFECTS = (ast.Return, ast.Break, ast.Continue, ast.Yield, ast.YieldFrom, ast.Await,
            ast.Global, ast.Nonlocal, ast.NamedExpr, ast.Delete)
_REVERSE = ("grad", "vjp", "linear_transpose")  # JAX's frames of reverse-mode differentiation


def fori_fix(ctx: ErrorContext, location: Location) -> Fix | None:
    """The loop on ``location``'s line as ``lax.fori_loop``, where that is the same loop."""
    parsed = _tracing.parse(location.source)
    if parsed is None or reversed_through(ctx):
        return None
    tree, code = parsed
    function = _scopes.enclosing_function(tree, location.lineno)
    loop = next((node for node in (function.body if function is not None else [])
                 if isinstance(node, ast.For) and node.lineno == location.lineno), None)
    if function is None or loop is None:
        return None
    bounds = _bounds(loop, code)
    state = carried(function, loop)
    if bounds is None or state is None:
        return None
    return _fix(ctx, location, tree, code, loop, bounds, state)


def _bounds(loop: ast.For, code: str) -> tuple[str, str] | None:
    """``(start, stop)`` of ``for name in range(stop)`` or ``range(start, stop)``."""
    it = loop.iter
    if not isinstance(loop.target, ast.Name) or loop.orelse or not isinstance(it, ast.Call) \
            or not isinstance(it.func, ast.Name) or it.func.id != "range" or it.keywords \
            or not 1 <= len(it.args) <= 2 or any(isinstance(a, ast.Starred) for a in it.args):
        return None
    parts = [_tracing.segment(code, a) for a in it.args]
    return ("0", parts[0]) if len(parts) == 1 else (parts[0], parts[1])


def _stored(statement: ast.stmt) -> list[str] | None:
    """The names an assignment statement stores, in order; None for any other statement."""
    if isinstance(statement, ast.Pass):
        return []
    targets: list[ast.expr]
    if isinstance(statement, ast.AugAssign | ast.AnnAssign):
        targets = [statement.target] if statement.value is not None else []
    elif isinstance(statement, ast.Assign):
        targets = list(statement.targets)
    else:
        return None
    names: list[str] = []
    while targets:
        target = targets.pop(0)
        if isinstance(target, ast.Name):
            names.append(target.id)
        elif isinstance(target, ast.Tuple | ast.List) and not any(
                isinstance(e, ast.Starred) for e in target.elts):
            targets[:0] = target.elts
        else:
            return None  # a subscript or attribute: a store into an object
    return names


def carried(function: _scopes.Function, loop: ast.For | ast.While) -> list[str] | None:
    """The names the loop carries from step to step, in the order the body first stores
    them (assigned in the body, bound before the loop); None where the loop is not the same
    computation as JAX's loop: a statement other than an assignment to names, a ``break``,
    ``return`` or ``else:``, a name the body only uses within a step (or a ``for``'s counter)
    read after the loop, or a loop directly in the function's body that carries nothing."""
    index = loop.target.id if isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) \
        else None
    if loop.orelse or loop not in function.body:
        return None
    stored: list[str] = []
    for statement in loop.body:
        names = _stored(statement)
        if names is None or any(isinstance(n, _EFFECTS) for n in ast.walk(statement)):
            return None
        stored += [n for n in names if n not in stored]
    position = function.body.index(loop)
    before: set[str] = {a.arg for a in (*function.args.posonlyargs, *function.args.args,
                                       *function.args.kwonlyargs)}
    for statement in function.body[:position]:
        before |= {n.id for n in ast.walk(statement)
                   if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    after = {n.id for statement in function.body[position + 1:] for n in ast.walk(statement)
             if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    carried = [n for n in stored if n in before]
    within = set(stored) - set(carried)
    if (index is not None and (index in stored or index in after)) or within & after \
            or not carried:
        return None
    return carried


def body_lines(code: str, loop: ast.For | ast.While, inner: str) -> list[str] | None:
    """The lines of the loop's body, indented by ``inner`` (blank lines kept blank); None
    where a line of it is written left of the body (a continuation line)."""
    lines = code.split("\n")
    step = " " * loop.body[0].col_offset
    body: list[str] = []
    for line in lines[loop.body[0].lineno - 1:loop.end_lineno or loop.lineno]:
        if line.strip() and not line.startswith(step):
            return None
        body.append(inner + line[len(step):] if line.strip() else "")
    return body


def fresh_names(tree: ast.Module, *choices: tuple[str, ...]) -> tuple[str, ...] | None:
    """For each tuple of ``choices``, its first name the code (the whole cell or file) does
    not use, distinct from the others'; None where one has no such name."""
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    picked: list[str] = []
    for names in choices:
        name = next((n for n in names if n not in used and n not in picked), None)
        if name is None:
            return None
        picked.append(name)
    return tuple(picked)


def reversed_through(ctx: ErrorContext) -> bool:
    """Whether JAX differentiates the failing code in reverse (a frame of grad or vjp): a
    ``while_loop`` (``fori_loop`` with a traced bound is one) cannot be."""
    return any(not frame.is_user and any(word in frame.function for word in _REVERSE)
               for frame in ctx.top.frames)


def _fix(ctx: ErrorContext, location: Location, tree: ast.Module, code: str, loop: ast.For,
         bounds: tuple[str, str], carried: list[str]) -> Fix | None:
    assert isinstance(loop.target, ast.Name)
    lines = code.split("\n")
    first, last = loop.lineno, loop.end_lineno or loop.lineno
    indent = " " * loop.col_offset
    inner = indent + "    "
    names = fresh_names(tree, ("loop_body", "fori_body", "step_body"),
                        ("carry", "loop_carry", "fori_carry"))
    if names is None:
        return None
    name, packed = names
    carry = ", ".join(carried)
    parameter = carried[0] if len(carried) == 1 else packed
    body = body_lines(code, loop, inner)
    if body is None:
        return None
    _, lax = _tracing.spellings(ctx)
    after = [f"{indent}def {name}({loop.target.id}, {parameter}):",
             *([f"{inner}{carry} = {packed}"] if len(carried) > 1 else []),
             *body,
             f"{inner}return {carry}",
             f"{indent}{carry} = {lax}.fori_loop({bounds[0]}, {bounds[1]}, {name}, "
             f"{carry if len(carried) == 1 else f'({carry})'})"]
    before = "\n".join(lines[first - 1:last])
    fix = rewrite_fix(
        ctx, location, _tracing.replacing_lines(first, last, before, after, "the loop"),
        label="Write the loop as fori_loop",
        summary=(f"Write the loop of line {first} as {lax}.fori_loop({bounds[0]}, {bounds[1]}, "
                 f"...), which runs its body once per step of the compiled program, carrying "
                 f"{carry}; then re-run."),
        safety=(f"Same steps on the same values: fori_loop runs the body {bounds[1]} times "
                f"in order, carrying {carry} from each step to the next as the loop did; XLA "
                "compiles one loop body instead of the unrolled steps, so floats may round "
                "differently."),
        safe=True)
    return replace(fix, rounding=True)
