"""An elementwise operation between arrays whose shapes do not broadcast: ``a + b`` with
shapes ``(3,)`` and ``(4,)``, ``x * y`` with ``(2, 3)`` and ``(3, 2)`` (``TypeError: add got
incompatible shapes for broadcasting: (3,), (4,).``).

JAX's message names the shapes; the user's line has the names. The explanation puts them
together (`batch` is float32[4, 5], `bias` is float32[4]), says which dimension disagrees
(compared from the right, where broadcasting starts) and, where adding an axis or
transposing one operand would make them fit, says that as a possibility. No fix: which
shape is wrong is the user's knowledge, except where one operand is a reduction of the
other's array over one axis without ``keepdims`` (``m - m.mean(axis=1)``, a log-softmax's
``z - logsumexp(z, axis=-1)``), assigned once before the line: its values belong to the
rows along that axis, and ``jnp.expand_dims(level, 1)`` puts the axis back so each meets
its own row; and except where the operation is inside a function the user's line called
on one array, one axis of which has the mismatched size: the function is mapped over that
axis (``_combinators.per_example_fix``).

Reports: google/lightweight_mmm#325 and #309 (``add got incompatible shapes for
broadcasting: (83,), (88,)`` with data of another length), google-research/jax3d#106
(``sub got incompatible shapes``), jax-ml/jax#12305 and lisa-lab/pylearn2#1583 (a mean over
one axis subtracted from its own matrix without ``keepdims``).
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.catalog import (
    _combinators,
    _entry,
    _operands,
    _scopes,
    _shapes,
    _static_site,
    _tracing,
)
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH561"
TITLE = "Arrays whose shapes do not broadcast"
MESSAGE = "got incompatible shapes for broadcasting"
NUMPY_STYLE = "Incompatible shapes for broadcasting: shapes="
TRIGGERS = (MESSAGE, NUMPY_STYLE)

_MESSAGE_RE = re.compile(r"(?P<op>\w+) got incompatible shapes for broadcasting: "
                         r"(?P<shapes>.+?)\.?$", re.M)
# JAX's primitive -> how users spell it
_SPELLINGS = {"add": ("add",), "sub": ("sub", "subtract"), "mul": ("mul", "multiply"),
              "div": ("div", "divide", "true_divide"), "max": ("maximum", "max"),
              "min": ("minimum", "min"), "pow": ("pow", "power"), "rem": ("remainder", "mod"),
              "atan2": ("arctan2",), "select_n": ("where", "select"),
              "eq": ("equal",), "ne": ("not_equal",), "lt": ("less",), "gt": ("greater",),
              "le": ("less_equal",), "ge": ("greater_equal",), "and": ("logical_and",),
              "or": ("logical_or",)}
# What performs the operation on a user's line (``engine.ask``): an elementwise operator
# or function; an addition JAX made inside another function (``jnp.linalg.cholesky``) is not
# the user's to explain as broadcasting.
OPERATIONS = frozenset({"+", "-", "*", "/", "//", "%", "**", "==", "!=", "<", "<=", ">", ">=",
                        "&", "|", "^", *_SPELLINGS,
                        *(name for names in _SPELLINGS.values() for name in names)})

EXAMPLES = (
    corrected_cell((JAX_IMPORTS, "scores = jnp.ones((4, 3))\nbias = jnp.arange(4.0)"),
                   "shifted = scores + bias", "shifted = scores + bias[:, None]", NO_FIX,
                   "shifted.shape == (4, 3)"),
    # Inside a jitted function: the tracers carry the shapes.
    corrected_cell((JAX_IMPORTS, "@jax.jit\ndef blend(a, b):\n    return 0.5 * a + 0.5 * b"),
                   "mix = blend(jnp.ones(3), jnp.ones(4))",
                   "mix = blend(jnp.ones(3), jnp.ones(3))", NO_FIX, "mix.shape == (3,)"),
    # one operand is a reduction of the other's array over an axis, without keepdims: the
    # axis put back, each row meets its own mean
    corrected_cell((JAX_IMPORTS, "m = jnp.arange(6.0).reshape(2, 3)\nlevel = m.mean(axis=1)"),
                   "centred = m - level", "centred = m - jnp.expand_dims(level, 1)",
                   "Put back axis 1 of level",
                   "centred.tolist() == [[-1.0, 0.0, 1.0], [-1.0, 0.0, 1.0]]"),
    # ... in a jitted function, a log-sum-exp over the last axis (log-softmax)
    corrected_cell((JAX_IMPORTS, "@jax.jit\ndef log_softmax(z):\n"
                    "    norm = jax.nn.logsumexp(z, axis=-1)\n    return z - norm"),
                   "out = log_softmax(jnp.zeros((2, 4)))",
                   "out = jax.nn.log_softmax(jnp.zeros((2, 4)))",
                   "Put back axis 1 of norm",
                   "out.shape == (2, 4) and abs(float(out[0, 0]) + float(jnp.log(4.0))) < 1e-6"),
    # a reduction of another array: which rows it belongs to is the user's to say
    corrected_cell((JAX_IMPORTS, "m = jnp.ones((2, 3))\nw = jnp.ones((2, 5)).sum(axis=1)"),
                   "scaled = m * w", "scaled = m * w[:, None]", NO_FIX,
                   "scaled.shape == (2, 3)"),
    # a function written for one example, called on a batch held as columns: mapped over
    # the one axis of the batch that has the mismatched size
    corrected_cell((JAX_IMPORTS, "w = jnp.ones((2, 3))\nb = jnp.array([1.0, 2.0])\n"
                    "def affine(v):\n    return w @ v + b\ncols = jnp.ones((3, 5))"),
                   "out = affine(cols)",
                   "out = jax.vmap(affine, in_axes=1, out_axes=1)(cols)",
                   "Map affine over axis 1 of cols",
                   "out.shape == (2, 5) and out[:, 0].tolist() == [4.0, 5.0]"),
)

WHY = _entry.prose("""
Elementwise operations pair the elements of their operands by broadcasting: the shapes are
compared from the last dimension backwards, and each pair of sizes must be equal, or one of
them 1 (that operand is repeated along it). A missing leading dimension counts as 1. Any
other pair of sizes has no pairing of elements.
""")


def _mismatch(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, int, int] | None:
    """The first dimension (counted from the right, as axes of the longer shape) whose
    sizes do not broadcast: (axis, size in a, size in b)."""
    for back in range(1, min(len(a), len(b)) + 1):
        x, y = a[-back], b[-back]
        if x != y and 1 not in (x, y):
            return max(len(a), len(b)) - back, x, y
    return None


def _broadcasts(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    return _mismatch(a, b) is None


def _hint(left: _operands.Operand, right: _operands.Operand) -> str | None:
    """One way the two shapes would fit: an added axis or a transpose of one operand."""
    a, b = left.shape or (), right.shape or ()
    for operand, mine, other in ((right, b, a), (left, a, b)):
        if len(mine) == 1 and len(other) >= 2 and mine[0] == other[-2]:
            return (f"`{operand.text}[:, None]` (shape {_shapes.shown((*mine, 1))}) would "
                    f"pair each element of {operand.text} with a row of the other operand")
        if len(mine) == 2 and _broadcasts(tuple(reversed(mine)), other) and mine[0] != mine[1]:
            return (f"`{operand.text}.T` (shape {_shapes.shown(tuple(reversed(mine)))}) "
                    "would fit, if the two are meant to line up that way")
    return None


# reductions whose result lines up with the rows it was computed over
_REDUCTIONS = frozenset({"sum", "mean", "max", "min", "amax", "amin", "std", "var", "prod",
                         "median", "nansum", "nanmean", "nanmax", "nanmin", "nanstd",
                         "nanvar", "logsumexp"})


def _reduced(value: ast.expr) -> tuple[ast.expr, int] | None:
    """``x.mean(axis=1)``, ``jnp.sum(x, 1)``, ``logsumexp(x, axis=-1)``: the reduced array
    and the one axis a reduction without ``keepdims`` removed from it."""
    if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute | ast.Name):
        return None
    name = value.func.attr if isinstance(value.func, ast.Attribute) else value.func.id
    if name not in _REDUCTIONS or any(k.arg == "keepdims" for k in value.keywords):
        return None
    method = isinstance(value.func, ast.Attribute) and _scopes.root_name(value.func.value) \
        not in ("jnp", "np", "jax", "numpy", "scipy", "special", "lax")
    if method:
        reduced, positional = value.func.value, value.args  # type: ignore[union-attr]
    elif value.args:
        reduced, positional = value.args[0], value.args[1:]
    else:
        return None
    axes = [k.value for k in value.keywords if k.arg == "axis"] or positional[:1]
    if len(axes) != 1 or not isinstance(axes[0], ast.Constant | ast.UnaryOp):
        return None
    try:
        axis = ast.literal_eval(axes[0])
    except ValueError:
        return None
    return (reduced, axis) if type(axis) is int else None


def _assigned(ctx: ErrorContext, location: Location, name: str) -> ast.expr | None:
    """The value ``name`` was given: once, before the line, in the function that holds the
    line; or at a cell's top level (the latest cell that assigns it)."""
    parsed = _tracing.parse(location.source)
    if parsed is None:
        return None
    tree, _ = parsed
    scope = _scopes.enclosing_function(tree, location.lineno)
    if scope is None or not _scopes.stores(scope, name):
        found = _static_site.latest_assignment(ctx, name)
        return found[1] if found is not None else None
    assignment = _scopes.assigned_once(scope, name)
    if assignment is None or assignment.lineno >= location.lineno:
        return None
    return assignment.value


def _reduced_axis_fix(ctx: ErrorContext, location: Location | None,
                      operation: _operands.Operation, left: _operands.Operand,
                      right: _operands.Operand) -> Fix | None:
    """``readings - baseline`` with ``baseline = readings[:, :2].mean(axis=1)``: one operand
    is a reduction of the other's array over one axis, without ``keepdims``, so its values
    line up with the other's rows along that axis, not along the last one broadcasting
    pairs first. Put back as size 1 (``jnp.expand_dims(baseline, 1)``), each value meets
    the row it was computed from, and the shapes broadcast to the other's."""
    if location is None:
        return None
    for mine, other in ((right, left), (left, right)):
        node, shape, wide = mine.node, mine.shape, other.shape
        if not isinstance(node, ast.Name) or shape is None or wide is None \
                or len(wide) != len(shape) + 1 or other.node is None:
            continue
        value = _assigned(ctx, location, node.id)
        found = _reduced(value) if value is not None else None
        if found is None:
            continue
        reduced, axis = found
        axis = axis + len(wide) if axis < 0 else axis
        if not 0 <= axis < len(wide) or wide[:axis] + wide[axis + 1:] != shape \
                or _scopes.root_name(reduced) is None \
                or _scopes.root_name(reduced) != _scopes.root_name(other.node):
            continue
        jnp = ctx.alias("jax.numpy") or "jnp"
        after = f"{jnp}.expand_dims({node.id}, {axis})"
        return rewrite_fix(
            ctx, location, _tracing.replacing(node, node.id, after),
            label=f"Put back axis {axis} of {node.id}",
            summary=(f"Write `{after}` in `{operation.text()}` on line {location.lineno}: "
                     f"{node.id} is a reduction of {_scopes.root_name(reduced)} over axis "
                     f"{axis}, and as shape {_shapes.shown((*shape[:axis], 1, *shape[axis:]))}"
                     f" each of its values meets the row it was computed from; then re-run."),
            safety=(f"Same values: each value of {node.id} is combined with the elements it "
                    f"was reduced from, along axis {axis}, as keepdims=True would line them "
                    "up; the result has the other operand's shape "
                    f"{_shapes.shown(wide)}."),
            safe=True)
    return None


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    outer = ctx.find(NUMPY_STYLE)
    link = ctx.find(MESSAGE)
    found = _MESSAGE_RE.search(link.message) if link is not None else None
    if outer is not None:  # jnp's own check: the shapes as the user's arrays have them
        link, op = outer, ""
        shapes = _shapes.shapes_in(outer.message.split("shapes=", 1)[1])
    elif link is not None and found is not None and link.is_a("TypeError"):
        op = found["op"]
        shapes = _shapes.shapes_in(found["shapes"])
    else:
        return None
    location = ctx.deepest_user_location()
    operations = _operands.operations(ctx, location, (op, *_SPELLINGS.get(op, ())) if op
                                      else ())
    operation = _shapes.operands_with(operations, shapes)
    subject = _tracing.quoted_line(location, "Your code")
    listed = ", ".join(_shapes.shown(s) for s in shapes)
    notes: list[str] = []
    fixes: list[Fix] = []
    if operation is not None:
        arrays = [o for o in operation.operands if o.shape is not None and not o.literal]
        explanation = (f"{subject} computes `{operation.text()}` elementwise, and the shapes "
                       f"do not broadcast: {_operands.listed(arrays)}.")
        if len(arrays) == 2:
            left, right = arrays
            mismatch = _mismatch(left.shape or (), right.shape or ())
            if mismatch is not None:
                _, x, y = mismatch
                explanation = explanation[:-1] + (f"; compared from the last dimension, "
                                                  f"`{left.text}` has {x} where `{right.text}` "
                                                  f"has {y}.")
            fix = _reduced_axis_fix(ctx, location, operation, left, right)
            if fix is not None:
                fixes.append(fix)
            hint = _hint(left, right) if fix is None else None
            if hint is not None:
                notes.append(f"If that is what you meant: {hint}.")
    else:
        explanation = (f"{subject} combines arrays of shapes {listed} elementwise"
                       f"{f' ({op})' if op else ''}, and those shapes do not broadcast.")
    mapped = _combinators.per_element_fix(ctx) if not fixes else None
    if mapped is not None:
        fixes.append(mapped)
        explanation += _combinators.SENTENCE
    mismatched = _mismatch(*shapes) if len(shapes) == 2 else None
    batched = (_combinators.per_example_fix(ctx, mismatched[1:])
               if not fixes and mismatched is not None else None)
    if batched is not None:
        fixes.append(batched)
        explanation += (" The mismatched size is that of one axis of the array your line "
                        "passes to the function, as where a function written for one example "
                        "is given a batch of them.")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.call_site(), notes=notes, fixes=fixes,
                            error=link.summary.splitlines()[0])
