"""Contract fixes for the explained view (``JNH001``) where JAX's check refused a Python
operator of the user's line, or the shape of what a function handed to a transformation
returns: the operator's operands, or the function's ``return``, are written so that the
check holds and every value stays what it was.

**An integer raised to a negative power.** ``counts ** -1`` (``Integers cannot be raised to
negative powers``): the reciprocal of an integer is a fraction, which only a float holds. The
base is passed as JAX's default float (``counts.astype(float)``), the same whole numbers
(exact below 2**24), so the power is the reciprocal NumPy's float power gives
(jax-ml/jax#5419, where counts were inverted so).

**Bitwise operators on float flags.** ``bright | cold`` of two float arrays that hold 0 and 1
(``or does not accept dtype float32``): ``|``, ``&``, ``^`` and ``~`` are bitwise, defined
for integers and booleans only. Where every operand's value is read and each element is 0 or
1, ``jnp.logical_or`` (``_and``, ``_xor``, ``_not``) gives the truth values the flags stand
for, as booleans (jax-ml/jax#2053, a cloud mask built from float flags).

**An aux output spread over the return.** ``return nll, p, acc`` from a function given to
``jax.value_and_grad(..., has_aux=True)`` (``expected function with aux output to return a
two-element tuple``): JAX takes a pair, the value to differentiate and one aux output. The
same values, the rest grouped as one tuple (``return nll, (p, acc)``), are that pair; where
the line unpacks the values flat (``(nll, p, acc), g = ...``), the grouping is the user's to
choose, and no fix is offered (jax-ml/jax#5776).

**An aux output the function never returns.** ``grads, preds = jax.grad(mse,
has_aux=True)(params, x, y)`` where ``mse`` returns its loss alone (``expected function with
aux output to return a two-element tuple, but got type ... Tracer``): the line unpacks the
aux output as ``preds``, and ``mse`` computes a local of that very name. Returning it beside
the loss (``return loss, preds``) is the pair JAX asks for; the gradient is the one of the
same loss. Only where the function has one ``return``, at the end of its body, and the
name is assigned once in that body before it (not a parameter); for ``jax.grad``
(``g, aux = ...``), ``jax.value_and_grad`` (``(v, aux), g = ...``) and ``jax.vjp`` (``out,
f_vjp, aux = ...``). Where the line keeps one result of ``jax.grad`` (``g = ...``), no aux
is wanted: ``has_aux=True`` is dropped from the call on the line. No name of the line's
found in the function: no fix (jax-ml/jax#1105,
a function given has_aux=True that returned its value alone; jax-ml/jax#5776, one that
returned three values; jax-ml/jax#484, where the pair was designed).
"""

from __future__ import annotations

import ast
import re
import sys
import types

from jax_nbhelp.catalog import _concrete, _operands, _scopes, _static_site, _tracing
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis import user_call as _user_call
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.provenance import is_jax_file
from jax_nbhelp.diagnosis.safe_eval import Evaluator
from jax_nbhelp.fix.fix_builders import rewrite_fix

_SIMPLE = (ast.Name, ast.Attribute, ast.Subscript, ast.Call)  # `x.astype` needs no parentheses


def fixes(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    """The first of this module's fixes that applies to the explained error, or None."""
    for rule in (_negative_power_fix, _logical_operator_fix, _aux_pair_fix, _aux_missing_fix):
        fix = rule(ctx, diagnosis)
        if fix is not None:
            return fix
    return None


def _line(diagnosis: Diagnosis) -> tuple[Location, ast.Module, str] | None:
    location = diagnosis.location
    parsed = _tracing.parse(location.source) if location is not None else None
    if location is None or parsed is None:
        return None
    return location, parsed[0], parsed[1]


def _on_line(tree: ast.Module, lineno: int, kind: type[ast.AST]) -> list[ast.AST]:
    return [n for n in ast.walk(tree) if isinstance(n, kind)
            and getattr(n, "lineno", 0) == getattr(n, "end_lineno", -1) == lineno]


# -- an integer raised to a negative power --------------------------------------------------

def _negative_power_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    if "cannot be raised to negative powers" not in ctx.top.message:
        return None
    line = _line(diagnosis)
    if line is None:
        return None
    location, _, code = line
    powers = [op for op in _operands.operations(ctx, location, ("pow", "power", "integer_pow"))
              if len(op.operands) == 2]
    found = [op for op in powers if (op.operands[0].dtype or "").startswith(("int", "uint"))
             and _negative_int(op.operands[1].node)]
    if len(found) != 1:
        return None
    (operation,) = found
    base = operation.operands[0]
    if base.node is None or base.literal or base.node.lineno != base.node.end_lineno:
        return None
    before = _tracing.segment(code, base.node)
    written = before if isinstance(base.node, _SIMPLE) else f"({before})"
    after = f"{written}.astype(float)"
    return rewrite_fix(
        ctx, location, _tracing.replacing(base.node, before, after),
        label="Raise it as a float",
        summary=(f"Write `{after}` for `{before}` on line {location.lineno}: a negative power "
                 "of an integer is a fraction, which only a float holds; then re-run."),
        safety=(f"Up to float rounding: the same whole numbers as JAX's default float (exact "
                f"below 2**24), so the power is the reciprocal NumPy's float power gives; "
                f"the result is a float array ({base.text} is {base.dtype})."),
        safe=True)


def _negative_int(node: ast.expr | None) -> bool:
    return isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) \
        and isinstance(node.operand, ast.Constant) and type(node.operand.value) is int \
        and node.operand.value > 0


# -- bitwise operators on 0/1 float flags ------------------------------------------------------

_BITWISE = re.compile(r"^(?P<op>or|and|xor|not) does not accept dtype (?P<dtype>b?float\d*)")
_LOGICAL = {ast.BitOr: "logical_or", ast.BitAnd: "logical_and", ast.BitXor: "logical_xor"}
_SYMBOL = {"or": ast.BitOr, "and": ast.BitAnd, "xor": ast.BitXor}


def _logical_operator_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    found = _BITWISE.search(ctx.top.message)
    if found is None:
        return None
    jnp = ctx.alias("jax.numpy")
    line = _line(diagnosis)
    if jnp is None or line is None:
        return None
    location, tree, code = line
    frame = ctx.live_frame(location)
    if frame is None:
        return None
    nodes: list[ast.expr] = []
    operands: list[ast.expr] = []
    if found["op"] == "not":
        for n in _on_line(tree, location.lineno, ast.UnaryOp):
            if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Invert):
                nodes.append(n)
                operands.append(n.operand)
        function = "logical_not"
    else:
        kind = _SYMBOL[found["op"]]
        for n in _on_line(tree, location.lineno, ast.BinOp):
            if isinstance(n, ast.BinOp) and isinstance(n.op, kind):
                nodes.append(n)
                operands.extend((n.left, n.right))
        function = _LOGICAL[kind]
    if len(nodes) != 1:
        return None
    (node,) = nodes
    evaluate = Evaluator(frame)
    if not all(_flags(evaluate(operand)) for operand in operands):
        return None
    texts = [_tracing.segment(code, operand) for operand in operands]
    before = _tracing.segment(code, node)
    after = f"{jnp}.{function}({', '.join(texts)})"
    return rewrite_fix(
        ctx, location, _tracing.replacing(node, before, after),
        label=f"Use {jnp}.{function}",
        summary=(f"Write `{after}` for `{before}` on line {location.lineno}: the operator is "
                 f"bitwise, and JAX takes it for integers and booleans only; then re-run."),
        safety=(f"Same truth values: every element of {' and '.join(texts)} is 0 or 1, and "
                f"{function} gives the truth value those flags stand for, as booleans."),
        safe=True)


def _flags(value: object) -> bool:
    """Whether ``value`` is a concrete number or NumPy/JAX array whose every element is 0
    or 1 (a traced or large array cannot be read: False)."""
    numbers = _concrete.held(value)
    numpy = sys.modules.get("numpy")
    return numbers is not None and numpy is not None \
        and bool(numpy.isin(numbers, (0, 1)).all())


# -- an aux output spread over the return ------------------------------------------------------

_AUX = "expected function with aux output to return a two-element tuple"


def _aux_pair_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    if _AUX not in ctx.top.message:
        return None
    call = ctx.user_call
    line = _line(diagnosis)
    if call is None or line is None:
        return None
    location, tree, _ = line
    bound = _user_call.bind(call)[1]
    argument = bound.arguments.get("fun") if bound is not None else None
    node = argument.node if isinstance(argument, _user_call.Argument) else None
    if not isinstance(node, ast.Name):
        return None
    found = _static_site.latest_top_level(ctx, ast.FunctionDef, node.id)
    if found is None:
        return None
    place, function = found
    returns = [n.value for n in _scopes.own_nodes(function) if isinstance(n, ast.Return)]
    sizes = {len(v.elts) for v in returns if isinstance(v, ast.Tuple)
             and v.lineno == v.end_lineno and not any(isinstance(e, ast.Starred)
                                                      for e in v.elts)}
    if not returns or len(sizes) != 1 or len(returns) != sum(
            isinstance(v, ast.Tuple) for v in returns) or min(sizes) < 3:
        return None
    size = sizes.pop()
    if _unpacked_flat(tree, location.lineno, size):
        return None
    code = place.source or ""
    edits = []
    for value in returns:
        assert isinstance(value, ast.Tuple)
        first, *rest = (_tracing.segment(code, e) for e in value.elts)
        before = _tracing.segment(code, value)
        after = f"{first}, ({', '.join(rest)})"
        if before.startswith("(") and before.endswith(")"):
            after = f"({after})"
        edits.append((value, before, after))
    shown = edits[0][2].strip("()") if len(edits) == 1 else "value, (aux, ...)"
    return rewrite_fix(
        ctx, place, _tracing.replacing_each(edits), label="Return the aux as one tuple",
        summary=(f"Return `{shown}` from {function.name}: the value to differentiate and "
                 f"its {size - 1} aux outputs as one tuple; then re-run."),
        safety=(f"Same values: {function.name} returns the same {size} values; JAX "
                "differentiates the first and hands back the rest, as one tuple, as the aux "
                "output."),
        safe=True)


def _unpacked_flat(tree: ast.Module, lineno: int, size: int) -> bool:
    """Whether the line's assignment unpacks the function's values flat: ``(a, b, c), g =
    ...`` (or ``a, b, c = ...`` of ``size`` names), which the grouped return would not fit."""
    for statement in ast.walk(tree):
        if not isinstance(statement, ast.Assign) \
                or not statement.lineno <= lineno <= (statement.end_lineno or lineno):
            continue
        for target in statement.targets:
            if isinstance(target, ast.Tuple | ast.List):
                if len(target.elts) == size:
                    return True
                if any(isinstance(e, ast.Tuple | ast.List) and len(e.elts) == size
                       for e in target.elts):
                    return True
    return False



# -- an aux output the function never returns -----------------------------------------------

# JAX's function that unpacks the pair, by the transformation the user called: where the aux
# sits in what the call returns (a path of indices into the line's unpacking)
_AUX_PLACES = {"grad_f_aux": (1,), "value_and_grad_f": (0, 1), "vjp": (2,)}


def _transformed(ctx: ErrorContext) -> tuple[types.FunctionType, tuple[int, ...]] | None:
    """The user's function a ``has_aux`` transformation ran and where its aux output sits
    in what the transformation returns, from JAX's frames (the outermost that names one)."""
    exc = ctx.exception
    tb = exc.__traceback__ if exc is not None else None
    place: tuple[int, ...] | None = None
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_name in _AUX_PLACES and is_jax_file(frame.f_code.co_filename):
            place = place or _AUX_PLACES[frame.f_code.co_name]
            fun = frame.f_locals.get("fun")  # (grad's own closure holds value_and_grad's)
            if fun is not None:
                return (fun, place) if isinstance(fun, types.FunctionType) else None
        tb = tb.tb_next
    return None


def _line_target(tree: ast.Module, lineno: int) -> ast.expr | None:
    """The one target of the assignment (``a = ...``, ``(v, a), g = ...``) spanning the
    line."""
    return next((statement.targets[0] for statement in ast.walk(tree)
                 if isinstance(statement, ast.Assign) and len(statement.targets) == 1
                 and statement.lineno <= lineno <= (statement.end_lineno or lineno)), None)


def _aux_target(target: ast.expr, place: tuple[int, ...]) -> str | None:
    """The name the line's assignment ``target`` gives the aux output (at ``place``)."""
    for index in place:
        if not isinstance(target, ast.Tuple | ast.List) or index >= len(target.elts):
            return None
        target = target.elts[index]
    return target.id if isinstance(target, ast.Name) else None


_HAS_AUX_RE = re.compile(r",\s*has_aux\s*=\s*True\b")


def _no_aux_fix(ctx: ErrorContext, location: Location, code: str) -> Fix | None:
    """``g = jax.grad(loss, has_aux=True)(w)`` where ``loss`` returns its value alone and
    the line keeps one value: ``has_aux=True`` dropped, the gradient of the same value."""
    calls = [c for c in _tracing.calls_on(location)[0]
             if any(k.arg == "has_aux" and isinstance(k.value, ast.Constant)
                    and k.value.value is True for k in c.keywords)]
    if len(calls) != 1:
        return None
    before = _tracing.segment(code, calls[0])
    after = _HAS_AUX_RE.sub("", before, count=1)
    if after == before:
        return None
    return rewrite_fix(
        ctx, location, _tracing.replacing(calls[0], before, after), label="Drop has_aux=True",
        summary=(f"Write `{after}` on line {location.lineno}: the function returns its value "
                 "alone, and your line keeps one result, the gradient; then re-run."),
        safety="Same gradient: of the same value, which the function returns alone.",
        safe=True)


def _aux_missing_fix(ctx: ErrorContext, diagnosis: Diagnosis) -> Fix | None:
    message = ctx.top.message
    if _AUX not in message or "but got type <class 'tuple'>" in message \
            or "but got type <class 'list'>" in message:
        return None
    found, line = _transformed(ctx), _line(diagnosis)
    if found is None or line is None:
        return None
    fun, place_in_result = found
    location, tree, code = line
    target = _line_target(tree, location.lineno)
    if target is None:
        return None
    if place_in_result == (1,) and isinstance(target, ast.Name):  # `g = grad(...)(w)`
        return _no_aux_fix(ctx, location, code)
    name = _aux_target(target, place_in_result)
    defined = _static_site.latest_top_level(ctx, ast.FunctionDef, fun.__name__)
    if name is None or defined is None:
        return None
    place, function = defined
    made = ctx.locate(fun.__code__.co_filename, fun.__code__.co_firstlineno)
    if made is None or made.cell is None or made.cell != place.cell or not function.body:
        return None
    last = function.body[-1]
    assigned = _scopes.assigned_once(function, name)
    parameters = {a.arg for a in (*function.args.posonlyargs, *function.args.args,
                                  *function.args.kwonlyargs)}
    if _scopes.one_return(function) is None or not isinstance(last, ast.Return) \
            or last.value is None or isinstance(last.value, ast.Tuple) \
            or assigned is None or assigned not in function.body or name in parameters:
        return None
    code = place.source or ""
    before = _tracing.segment(code, last.value)
    after = f"{before}, {name}"
    return rewrite_fix(
        ctx, place, _tracing.replacing(last.value, before, after),
        label=f"Return {name} as the aux output",
        summary=(f"Return `{after}` from {function.name}: the value to differentiate and "
                 f"the aux output your line unpacks as {name}; then re-run."),
        safety=(f"Same gradient: {function.name} differentiates the same value; {name}, "
                f"the value {function.name} computes under that name, is handed back as "
                "the aux output."),
        safe=True)


__all__ = ["fixes"]
