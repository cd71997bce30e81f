"""A ``jax.lax`` elementwise operation given arrays of different ranks: ``lax.add(bias, x)``
with a float32[3] and a float32[2, 3] (``TypeError: add: arrays must have the same number of
dimensions, got {1, 2}``), or ``lax.select(x > 0, x, 0.0)`` with a scalar case (``TypeError:
select cases must have the same shapes, got [(), (2,)].``).

``jax.lax`` is the layer below ``jax.numpy``: its elementwise operations broadcast Python
scalars and axes of size 1 between arrays of one rank, and nothing else (``lax.select``'s two
cases not even a scalar). The ``jax.numpy`` function of the same operation broadcasts as
NumPy does, lining up the trailing axes, and then runs the same lax operation. The fix calls
it. It keeps every value where each smaller operand fits the result's axes in one way only (a
scalar, ``(3,)`` against ``(2, 3)``); where it would fit another way too (``(3,)`` against
``(3, 3)``, as a row or as a column), the fix says which way NumPy picks and is not
recommended.

Reports: jax-ml/jax#901 (``lax.select`` "doesn't implement numpy's broadcasting
semantics"), jax-ml/jax#9868 (``lax.max`` takes broadcastable operands where ``lax.select``
does not), RobertTLange/evosax#60 (``lax.select`` replaced by ``jnp.where``), jax-ml/jax#7650
(this message's wording, for users who do not read "rank"). JAX's API reference says it on
each lax operation's page (``jax.lax.add``: "If neither is a scalar, x and y must have the
same number of dimensions", and see also ``jax.numpy.add``, "supporting inputs with mixed
dtypes and ranks").
"""

from __future__ import annotations

import re

from jax_nbhelp.catalog import _entry, _operands, _shapes, _tracing
from jax_nbhelp.catalog._example import LAX_IMPORTS, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH565"
TITLE = "A jax.lax operation given arrays of different ranks"
MESSAGE = "arrays must have the same number of dimensions, got"
SELECT = "select cases must have the same shapes, got"

PREDICATE = "must be scalar or have the same shape as"
_MESSAGE_RE = re.compile(r"(?:(?P<op>\w+): arrays must have the same number of dimensions, "
                         r"got|(?P<select>select) cases must have the same shapes, got"
                         rf"|(?P<which>select) \W?(?:which|pred)\W? {PREDICATE})")
# The lax operation -> the jax.numpy function that broadcasts its operands as NumPy does
# and then runs that same operation, so every value it computes is the lax operation's on
# the broadcast operands. (JAX's own tip table pairs more names, some with functions that
# compute otherwise: `div` of integers truncates where `jnp.divide` does not, so division
# counts only for inexact operands.)
_SAME_OPERATION = {"add": "add", "sub": "subtract", "mul": "multiply", "max": "maximum",
                   "min": "minimum", "atan2": "arctan2", "nextafter": "nextafter",
                   "eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
                   "gt": "greater", "ge": "greater_equal", "bitwise_and": "bitwise_and",
                   "bitwise_or": "bitwise_or", "bitwise_xor": "bitwise_xor",
                   "select": "where", "div": "divide", "pow": "power"}
_INEXACT_ONLY = frozenset({"div", "pow"})
OPERATIONS = frozenset(_SAME_OPERATION)

_BIAS = "bias = jnp.arange(3.0)\nx = jnp.ones((2, 3))"

EXAMPLES = (
    corrected_cell((LAX_IMPORTS, _BIAS), "y = lax.add(x, bias)", "y = jnp.add(x, bias)",
                   "Use jnp.add", "y.shape == (2, 3) and y[1].tolist() == [1.0, 2.0, 3.0]"),
    corrected_cell((LAX_IMPORTS, "x = jnp.array([-1.0, 2.0])"),
                   "y = lax.select(x > 0, x, 0.0)", "y = jnp.where(x > 0, x, 0.0)",
                   "Use jnp.where", "y.tolist() == [0.0, 2.0]"),
)

WHY = _entry.prose("""
jax.lax is the layer under jax.numpy: each lax operation is one XLA operation, and XLA's
elementwise operations take arrays of one shape. lax stretches Python scalars and axes of
size 1 to fit; an array of fewer axes it does not place, because where its axes go is a
choice. jax.numpy makes NumPy's choice (the trailing axes line up), then runs the lax
operation.
""")

MATCH = Match(MESSAGE, "TypeError", _MESSAGE_RE, also=(SELECT, PREDICATE))


def diagnose(ctx: ErrorContext, link: Link, found: re.Match[str]) -> Diagnosis | None:
    op = found["op"] or found["select"] or found["which"]
    location = ctx.deepest_user_location()
    lax = ctx.alias("jax.lax") or "lax"
    operations = [o for o in _operands.operations(ctx, location, (op,))
                  if o.spelled in (f"{lax}.{op}", f"jax.lax.{op}")]
    operation = _operands.entered_values(ctx, operations[0]) if operations else None
    subject = _tracing.quoted_line(location, "Your code")
    known = operation is not None and all(o.shape is not None for o in operation.operands)
    if operation is None or not known:
        explanation = (f"{subject} calls lax.{op} with arrays of different "
                       f"{'ranks' if found['op'] else 'shapes'}, and lax.{op} does not "
                       "broadcast them.")
        return _entry.diagnosis(ctx, __name__, explanation, location=location,
                                error=link.summary.splitlines()[0])
    arrays = operation.operands[1:] if found["select"] else operation.operands
    rule = ("lax.select does not broadcast its two cases, not even a scalar"
            if found["select"] else
            "lax.select takes a predicate of the cases' shape, or a scalar, and broadcasts "
            "nothing else" if found["which"] else
            f"lax.{op} does not broadcast an array to more axes")
    explanation = (f"{subject} calls {operation.spelled}, where {_operands.listed(arrays)}: "
                   f"{rule}.")
    fixes: list[Fix] = []
    fix = _numpy_fix(ctx, location, operation, op) if location is not None else None
    if fix is not None:
        fixes.append(fix)
    return _entry.diagnosis(ctx, __name__, explanation, location=location, fixes=fixes,
                            error=link.summary.splitlines()[0])


def _numpy_fix(ctx: ErrorContext, location: Location, operation: _operands.Operation,
               op: str) -> Fix | None:
    shapes = [o.shape or () for o in operation.operands]
    dtypes = [o.dtype or "" for o in operation.operands]
    if op in _INEXACT_ONLY and not all(d.startswith(("float", "bfloat", "complex"))
                                       for d in dtypes):
        return None  # integer division and powers: jnp's functions compute otherwise
    result = _broadcast(shapes)
    if result is None:
        return None  # NumPy's broadcasting does not fit them either: the user's call
    function = f"{ctx.alias('jax.numpy') or 'jnp'}.{_SAME_OPERATION[op]}"
    counted = [(o, len(_placements(s, result))) for o, s in zip(operation.operands, shapes,
                                                                strict=True)]
    other = next(((o, n) for o, n in counted if n > 1), None)
    spelled = operation.spelled

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.wrap_in_call import replace_callee

        return replace_callee(source, location.lineno, spelled, function)

    if other is None:
        safety = (f"Same values: {function} lines the operands up as NumPy does, and each "
                  f"fits the result's shape {_shapes.shown(result)} in that way only; then it "
                  f"runs lax.{op}.")
        changes = None
    else:
        operand, ways = other
        safety = (f"{function} lines `{operand.text}`, of shape "
                  f"{_shapes.shown(operand.shape or ())}, up with the trailing axes of "
                  f"{_shapes.shown(result)}, as NumPy does; it fits {ways} ways, so check "
                  "that this is the one you meant.")
        changes = (f"places `{operand.text}` along the trailing axes, one of {ways} ways it "
                   "fits")
    return rewrite_fix(
        ctx, location, transform, label=f"Use {function}",
        summary=(f"Call {function} instead of {spelled} on line {location.lineno}: it "
                 "broadcasts the operands as NumPy does first; then re-run."),
        safety=safety, safe=other is None, changes=changes)


def _broadcast(shapes: list[tuple[int, ...]]) -> tuple[int, ...] | None:
    """NumPy's broadcast of ``shapes`` (trailing axes lined up), None where they clash."""
    rank = max(len(s) for s in shapes)
    result = []
    for axis in range(rank):
        sizes = {s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0} - {1}
        if len(sizes) > 1:
            return None
        result.append(sizes.pop() if sizes else 1)
    return tuple(result)


def _placements(shape: tuple[int, ...], result: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The ways the axes of ``shape`` that hold data (size over 1) go, in order, onto axes of
    ``result`` of the same size: one way (or none to place: a scalar, all sizes 1) leaves no
    choice."""
    sizes = [size for size in shape if size != 1]

    def place(start: int, index: int) -> list[tuple[int, ...]]:
        if index == len(sizes):
            return [()]
        return [(axis, *rest) for axis in range(start, len(result))
                if result[axis] == sizes[index] for rest in place(axis + 1, index + 1)]

    return place(0, 0)
