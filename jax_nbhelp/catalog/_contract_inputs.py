"""Contract fixes for the explained view (``JNH001``) where a PRNG key or a differentiated
point is given in a form JAX's check refuses, and exactly one reading of the user's line
runs.

**One key unpacked into several.** ``k1, k2 = key`` of a typed key (``jax.random.key(0)``):
a key array of shape ``()`` is one key, and Python's unpacking iterates it (``TypeError:
iteration over a 0-d key array``). New keys are made from a key by splitting it:
``k1, k2 = jax.random.split(key)`` (``split(key, 3)`` for three names). The key itself is
not changed; the names get new keys, independent of each other, as every split does. Read
from the line's assignment and the key's own class (its shape), never a user's object.

**An integer point given to ``jax.jvp``.** ``jax.jvp(f, (3,), (1.0,))``: JAX reads an
integer primal as a point with no tangent space (its tangent must be ``float0``), and the
float tangent the call gives refuses it (``primal and tangent arguments to jax.jvp do not
match; ... the tangent dtype must be float0``). The point is the same number as a float,
where the tangent means a direction: the literal ``3.0``, ``float(a0)`` for a name holding a
Python int, ``x.astype(<the tangent's dtype>)`` for an integer array. Only where every such
primal's tangent is a float.

**An integer point linearized.** ``a0 = 3``, then ``r0, J = jax.linearize(f, a0)`` and a
use of ``J`` with a float tangent (``jax.linear_transpose(J, a0)``, ``J(1.0)``): the
linearized function expects the ``float0`` tangent of an integer point (``linearized
function called on tangent values inconsistent with the original primal values``). Where
the cell that linearizes assigns that name a whole-number literal at its top level, before
the call, the literal is written as the same number as a float (``a0 = 3.0``), and that cell
runs again before the failing one. Only where the name holds that Python int now.

**An integer leaf's gradient used in an update.** ``jax.grad(loss, allow_int=True)`` gives
an integer leaf (an index table kept among the parameters) a ``float0`` gradient: it has no
tangent space, and JAX refuses arithmetic on it (``Called multiply with a float0 array``).
In a tree map that updates each leaf from its gradient (``lambda p, g: p - lr * g``, or a
def that returns that: the parameter plus or minus a term of its gradient), the integer
leaf's update is zero: the fix keeps the update for the leaves that have a gradient and the
leaf as it is for the others (``p - lr * g if jnp.issubdtype(p.dtype, jnp.inexact) else
p``). Read from the function's live frame: the leaf is an integer array and the gradient a
``float0`` one.

Reports: jax-ml/jax#9263 (typed key arrays: one key is an array of shape ``()``, with the
operations a key allows), jax-ml/coix#15 ("key has type now and it has scalar shape"),
blackjax-devs/blackjax#526 (several keys made by one split); jax-ml/jax#4433 (an integer
primal given to ``jvp`` beside a float tangent, "the tangent dtype must be float0") and
jax-ml/jax#4039 (integer inputs get ``float0`` tangents, and arithmetic on them is an
error by design).
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.catalog import _contract_call, _tracing
from jax_nbhelp.core.model import Diagnosis, Fix
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.diagnosis.safe_eval import CANNOT, Evaluator
from jax_nbhelp.fix.fix_builders import rewrite_fix

_KEY_ITERATED = "iteration over a 0-d key array"
_FLOAT0_USED = re.compile(r"Called \w+ with a float0 array")
_LINEARIZED = "linearized function called on tangent values inconsistent with the original"
_EXPECTED_FLOAT0 = re.compile(r"but expected ~?float0\[")
_GOT_TANGENT = re.compile(r"but got tangent dtype (?P<dtype>b?float\d+) instead")
_JVP_FLOAT0 = re.compile(r"primal and tangent arguments to jax\.jvp do not match; dtypes must "
                         r"be equal, or in case of int/bool primal dtype the tangent dtype must "
                         r"be float0")


def fixes(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """The first of this module's fixes that applies to the explained error, or None."""
    for rule in (_unpacked_key_fix, _integer_point_fix, _integer_linearized_fix,
                 _float0_update_fix):
        fix = rule(ctx, diagnosis)
        if fix is not None:
            return fix
    return None


def _is_single_key(value: object) -> bool:
    """A typed PRNG key array of shape ``()``, read from JAX's own class."""
    kind = type(value)
    return kind.__name__ == "PRNGKeyArray" and kind.__module__.startswith("jax") \
        and getattr(value, "shape", None) == ()


def _unpacked_key_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    location = diagnosis.location
    jax = ctx.alias("jax")
    if _KEY_ITERATED not in ctx.top.message or location is None or jax is None:
        return None
    parsed = _tracing.parse(location.source)
    frame = ctx.live_frame(location)
    if parsed is None or frame is None:
        return None
    tree, code = parsed
    found = [node for node in ast.walk(tree) if isinstance(node, ast.Assign)
             and node.lineno == location.lineno and len(node.targets) == 1
             and isinstance(node.targets[0], ast.Tuple | ast.List)
             and all(isinstance(n, ast.Name) for n in node.targets[0].elts)
             and node.value.lineno == node.value.end_lineno]
    if len(found) != 1:
        return None
    statement = found[0]
    target = statement.targets[0]
    assert isinstance(target, ast.Tuple | ast.List)
    count = len(target.elts)
    value = Evaluator(frame)(statement.value)
    if value is CANNOT or count < 2 or not _is_single_key(value):
        return None
    before = _tracing.segment(code, statement.value)
    after = f"{jax}.random.split({before}{'' if count == 2 else f', {count}'})"
    names = ", ".join(n.id for n in target.elts if isinstance(n, ast.Name))
    return rewrite_fix(
        ctx, location, _tracing.replacing(statement.value, before, after),
        label=f"Split {before} into {count} keys",
        summary=(f"Write `{names} = {after}` on line {location.lineno}: {before} is one key, "
                 f"and {count} new keys are made from it by splitting it; then re-run."),
        safety=(f"{names} are the {count} keys {after} makes: new keys, independent of each "
                f"other, as every split makes them; {before} itself is not changed."),
        safe=True)


def _integer_point_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    plain = _contract_call.plain_call(ctx, diagnosis)
    if plain is None or not _JVP_FLOAT0.search(ctx.top.message):
        return None
    call, location, _ = plain
    primals, tangents = (_contract_call.given(call, name) for name in ("primals", "tangents"))
    if not isinstance(primals, ast.Tuple | ast.List) \
            or not isinstance(tangents, ast.Tuple | ast.List) \
            or len(primals.elts) != len(tangents.elts):
        return None
    evaluate = Evaluator(call.frame)
    # the tangent's dtype JAX names, for a tangent the line computes (jnp.ones(3))
    said = _GOT_TANGENT.search(ctx.top.message)
    edits: list[tuple[ast.expr, str]] = []
    for point, direction in zip(primals.elts, tangents.elts, strict=True):
        held = _contract_call.value_of(call, point, evaluate)
        along = _contract_call.value_of(call, direction, evaluate)
        along_dtype = _contract_call.array_dtype(along)
        if along is CANNOT and said is not None and len(primals.elts) == 1:
            along_dtype = said["dtype"]
        floats = type(along) is float or str(along_dtype or "").startswith(
            ("float", "bfloat"))
        dtype = _contract_call.array_dtype(held)
        if type(held) is int and floats:
            edits.append((point, f"{float(held)!r}" if isinstance(point, ast.Constant)
                          else "float({})"))
        elif dtype is not None and dtype.kind in "iub" and floats:
            edits.append((point, f"{{}}.astype('{along_dtype or 'float32'}')"))
        elif held is CANNOT or (dtype is None and type(held) is not float):
            return None
    if not edits:
        return None
    return _contract_call.rewritten(
        ctx, location, edits, label="Pass the point as a float",
        why=("jax.jvp reads an integer point as one with no tangent space, and the tangent "
             "the call gives is a float direction"),
        safety=("Same point: the same numbers as floats, so the tangent is a direction at it; "
                "an integer point has none."))


def _linearized_here(ctx: ErrorContext) -> tuple[int, ast.Call] | None:
    """The latest cell whose top level calls ``linearize`` (once), and that call."""
    for number in sorted(ctx.cell_sources, reverse=True):
        parsed = _tracing.parse(ctx.cell_sources[number])
        calls = [node for statement in parsed[0].body for node in ast.walk(statement)
                 if isinstance(node, ast.Call)
                 and (dotted(node.func) or "").rsplit(".", 1)[-1] == "linearize"] \
            if parsed is not None else []
        if calls:
            return (number, calls[0]) if len(calls) == 1 else None
    return None


def _last_assignment(source: str, name: str, before_line: int | None) -> ast.stmt | None:
    """The last top-level statement of a cell (before ``before_line``) that binds ``name``."""
    parsed = _tracing.parse(source)
    assigned = [statement for statement in (parsed[0].body if parsed is not None else [])
                if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
                       for n in ast.walk(statement))
                and (before_line is None or (statement.end_lineno or 0) < before_line)]
    return assigned[-1] if assigned else None


def _integer_linearized_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    message = ctx.top.message
    location = diagnosis.location
    frame = ctx.live_frame(location) if location is not None else None
    found = _linearized_here(ctx) if frame is not None else None
    if _LINEARIZED not in message or not _EXPECTED_FLOAT0.search(message) \
            or frame is None or found is None or location is None:
        return None
    number, call = found
    names = frame.f_globals
    points = [arg.id for arg in call.args[1:] if isinstance(arg, ast.Name)
              and type(names.get(arg.id)) is int]
    if len(points) != 1:
        return None
    name = points[0]
    # the assignment in the cell that linearizes (before the call), or, where that cell is
    # the failing one, in the latest earlier cell that assigns it: both run again
    cell, statement = next(((n, last) for n in sorted(ctx.cell_sources, reverse=True)
                            if n <= number and (last := _last_assignment(
                                ctx.cell_sources[n], name,
                                call.lineno if n == number else None)) is not None),
                           (None, None))
    place = ctx.cell(cell) if cell is not None else None
    parsed = _tracing.parse(place.source) if place is not None else None
    if place is None or parsed is None or not isinstance(statement, ast.Assign) \
            or len(statement.targets) != 1 or not isinstance(statement.value, ast.Constant) \
            or type(statement.value.value) is not int \
            or statement.value.value != names.get(name) \
            or (cell != number and number != location.cell):
        return None
    node, code = statement.value, parsed[1]
    before = _tracing.segment(code, node)
    after = repr(float(node.value))  # type: ignore[arg-type]
    return rewrite_fix(
        ctx, place, _tracing.replacing(node, before, after),
        label=f"Start {name} at {after}",
        summary=(f"Write `{name} = {after}` on {place.label}: {name} is the point "
                 "linearized, an integer point has no tangent space, and the linearized "
                 "function is given float tangents; then re-run."),
        safety=(f"Same point: {after} is the number {before}, as a float, so the "
                "linearized function takes float tangents at it."),
        safe=True)


def _dtype_kind(value: object) -> str | None:
    dtype = _contract_call.array_dtype(value)
    return getattr(dtype, "kind", None) if dtype is not None else None


def _float0_update_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    location = diagnosis.location
    jnp = ctx.alias("jax.numpy")
    if not _FLOAT0_USED.search(ctx.top.message) or location is None or jnp is None:
        return None
    frame = ctx.live_frame(location)
    parsed = _tracing.parse(location.source)
    if frame is None or parsed is None:
        return None
    tree, code = parsed
    # the update: a lambda's body, or the one return of a def, on the line, that is the
    # function's first parameter plus or minus a term
    updates = [(node.args.args, node.body) for node in ast.walk(tree)
               if isinstance(node, ast.Lambda) and frame.f_code.co_name == "<lambda>"] + [
        (node.args.args, node.body[-1].value) for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name == frame.f_code.co_name
        and isinstance(node.body[-1], ast.Return) and node.body[-1].value is not None]
    found = [(args, body) for args, body in updates
             if body.lineno == body.end_lineno == location.lineno and len(args) >= 2
             and isinstance(body, ast.BinOp) and isinstance(body.op, ast.Add | ast.Sub)
             and isinstance(body.left, ast.Name) and body.left.id == args[0].arg]
    if len(found) != 1:
        return None
    args, update = found[0]
    leaf = args[0].arg
    held = frame.f_locals
    if not {a.arg for a in args} <= set(held) \
            or _dtype_kind(held[leaf]) not in ("i", "u", "b") \
            or not any("float0" in str(_contract_call.array_dtype(held[a.arg]))
                       for a in args[1:]):
        return None
    before = _tracing.segment(code, update)
    after = f"{before} if {jnp}.issubdtype({leaf}.dtype, {jnp}.inexact) else {leaf}"
    return rewrite_fix(
        ctx, location, _tracing.replacing(update, before, after),
        label=f"Keep integer {leaf} as it is",
        summary=(f"Write `{after}` for the update on line {location.lineno}: an "
                 f"integer {leaf} has no gradient (its gradient is float0), so its update is "
                 "zero; then re-run."),
        safety=(f"Same values for every leaf with a gradient; an integer leaf stays as it is, "
                f"as `{before}` with a zero gradient would leave it."),
        safe=True)
