"""``jax.grad`` of a function whose output is not one number: a vector, a matrix, or an array
of one element (``TypeError: Gradient only defined for scalar-output functions. Output had
shape: (3,).``).

A gradient is the derivative of one number. Which derivative of a vector output the user
wants is theirs to say, and the explanation names the three in their own names and shapes:
the full Jacobian (``jax.jacobian``), per-element derivatives of an elementwise function
(``jax.vmap(jax.grad(f))``), or the gradient of a reduction (a loss: ``.sum()``,
``.mean()``). An output of exactly one element (shape ``(1,)``) has one meaning: the fix
differentiates that element at the grad call, which leaves the function as it is. A
vmapped grad called with an ``(N, 1)`` column maps its rows, each of shape ``(1,)``: the
column's values as a vector (``t[:, 0]``) are the numbers it meant.

Reports: patrick-kidger/equinox#213 (an MLP with ``out_size=1``: output shape ``(1,)``),
MilesCranmer/lagrangian_nns#6 (a removed ``jnp.squeeze`` left a ``(4,)`` output),
jax-ml/jax#28110 (second derivatives at collocation points kept as an ``(N, 1)`` column; the
answer squeezes the column).
"""

from __future__ import annotations

import ast
import math
import re

from jax_nbhelp.catalog import _entry, _shapes, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.line_values import Value, shape_text
from jax_nbhelp.diagnosis.match import Match
from jax_nbhelp.diagnosis.safe_eval import Evaluator
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH521"
TITLE = "jax.grad of a function whose output is not one number"
MESSAGE = "Gradient only defined for scalar-output functions. Output had shape"

_SHAPE_RE = re.compile(r"Output had shape: \((?P<shape>[^)]*)\)")

EXAMPLES = (
    corrected_cell((JAX_IMPORTS, "def predict(w):\n    return jnp.ones((1, 3)) @ w"),
                   "slope = jax.grad(predict)(jnp.arange(3.0))",
                   "slope = jax.grad(lambda *args: predict(*args).reshape(()))"
                   "(jnp.arange(3.0))",
                   "Differentiate the only element", "slope.tolist() == [1.0, 1.0, 1.0]"),
    corrected_cell((JAX_IMPORTS, "def cube(x):\n    return x ** 3"),
                   "slopes = jax.grad(cube)(jnp.arange(3.0))",
                   "slopes = jax.vmap(jax.grad(cube))(jnp.arange(3.0))", NO_FIX,
                   "slopes.tolist() == [0.0, 3.0, 12.0]"),
    # a vmapped grad given points kept as an (N, 1) column: one number per row instead
    corrected_cell((JAX_IMPORTS, "def cube(t):\n    return t ** 3\n"
                                 "slope = jax.vmap(jax.grad(cube))\nts = jnp.arange(3.0)[:, None]"),
                   "s = slope(ts)", "s = slope(ts[:, 0])", "Map over ts[:, 0]",
                   "s.tolist() == [0.0, 3.0, 12.0]"),
)

WHY = _entry.prose("""
jax.grad computes the gradient of one number (a loss) with respect to the inputs: an array
of the input's shape. A function with several outputs has one derivative per output and
input element, and which of them you want decides the transformation: jax.jacobian for all
of them, jax.vmap(jax.grad(f)) for the derivative of each element of an elementwise
function, or jax.grad of a reduction (sum, mean) for a loss.
""")


def _grad_call(location: Location) -> tuple[ast.Call, ast.Call, str] | None:
    """``jax.grad(f, ...)(args)`` on the line: the outer call, the grad call, and ``f``."""
    for node, grad in _tracing.grad_calls(location):
        if grad.args and isinstance(grad.args[0], ast.Name):
            return node, grad, grad.args[0].id
    return None


MATCH = Match(MESSAGE, pattern=_SHAPE_RE)


def diagnose(ctx: ErrorContext, link: Link, found: re.Match[str]) -> Diagnosis | None:
    shape = tuple(int(d) for d in found["shape"].replace(" ", "").split(",") if d)
    location = ctx.call_site()
    call = _grad_call(location) if location is not None else None
    subject = _tracing.quoted_line(location, "Your code")
    output = f"shape ({found['shape']})"
    if call is None or location is None:
        explanation = (f"{subject} asks jax.grad to differentiate a function whose output has "
                       f"{output}: a gradient is the derivative of one number.")
        column = _column_fix(ctx, location) if shape == (1,) and location is not None \
            else None
        if column is not None:
            explanation += (f" vmap hands the function one row of `{column[1]}` at a time, "
                            "and a row of a column is an array of one element, not a number.")
        return _entry.diagnosis(ctx, __name__, explanation, location=location,
                                call_site=ctx.failing_cell(),
                                fixes=(column[0],) if column is not None else (),
                                notes=[] if column is not None else [
                                    "Use jax.jacobian for every derivative, or "
                                    "differentiate a reduction (a sum or a mean)."])
    outer, _, function = call
    jax = ctx.alias("jax") or "jax"
    values = {v.text: v for v in ctx.values_at(location)}
    explanation = (f"{subject} asks jax.grad to differentiate {function}, whose output has "
                   f"{output}: a gradient is the derivative of one number.")
    fixes: list[Fix] = []
    notes: list[str] = []
    if math.prod(shape) == 1:
        fixes.append(_only_element(ctx, location, function, shape))
    else:
        notes = _ways_out(jax, function, shape, outer, values)
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=fixes, notes=notes)


def _ways_out(jax: str, function: str, shape: tuple[int, ...], outer: ast.Call,
              values: dict[str, Value]) -> list[str]:
    first = ast.unparse(outer.args[0]) if outer.args else "x"
    given = values.get(first)
    args = ", ".join(ast.unparse(a) for a in outer.args)
    jacobian = ""
    if given is not None and given.shape is not None:
        jacobian = f" (shape {shape_text(shape + given.shape)} here)"
    notes = [f"Every derivative of every output: `{jax}.jacobian({function})({args})`"
             f"{jacobian}."]
    if given is None or given.shape == shape:
        notes.append(f"If {function} works element by element, the derivative of each "
                     f"element: `{jax}.vmap({jax}.grad({function}))({args})`, where "
                     f"{function} sees one element at a time.")
    notes.append(f"The gradient of a loss made from the outputs: "
                 f"`{jax}.grad(lambda *args: {function}(*args).sum())({args})` (or .mean()).")
    return notes


def _only_element(ctx: ErrorContext, location: Location, function: str,
                  shape: tuple[int, ...]) -> Fix:
    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.scalar_objective import differentiate_only_element

        return differentiate_only_element(source, location.lineno, function)

    return rewrite_fix(
        ctx, location, transform, label="Differentiate the only element",
        summary=(f"Differentiate the one element of {function}'s output at the grad call on "
                 f"line {location.lineno} (`lambda *args: {function}(*args).reshape(())`); "
                 f"{function} itself is unchanged. Then re-run."),
        safety=(f"Same values: an output of shape {shape} holds one number, and its gradient "
                "is what the grad call asks for."),
        safe=True)


def _column_fix(ctx: ErrorContext, location: Location) -> tuple[Fix, str] | None:
    """A vmapped grad (``jax.vmap(jax.grad(u))``, applied where it was made or on another
    line) called with one ``(N, 1)`` column: vmap maps its rows, each an array of shape
    ``(1,)``, where an elementwise function's gradient needs one number. Passing the
    column's values as a vector (``t[:, 0]``) maps one number per row."""
    frames = ctx.top.frames
    at = [i for i, frame in enumerate(frames) if frame.location == location]
    inside = [frame.function for frame in frames[at[-1] + 1:]] if at else []
    frame = ctx.live_frame(location)
    parsed = _tracing.parse(location.source)
    if "vmap_f" not in inside or frame is None or parsed is None:
        return None
    tree, code = parsed
    evaluate = Evaluator(frame)
    columns = [arg for node in ast.walk(tree) if isinstance(node, ast.Call)
               and node.lineno == location.lineno for arg in node.args
               if isinstance(arg, ast.Name | ast.Attribute | ast.Subscript)
               and (shape := _shapes.array_shape(evaluate(arg))) is not None
               and len(shape) == 2 and shape[1] == 1]
    if len(columns) != 1:
        return None
    column = columns[0]
    before = _tracing.segment(code, column)
    after = f"{before}[:, 0]"
    return rewrite_fix(
        ctx, location, _tracing.replacing(column, before, after),
        label=f"Map over {after}",
        summary=(f"Pass `{after}` on line {location.lineno}: the column's values as a vector, "
                 "so that vmap hands the function one number at a time; then re-run."),
        safety=(f"Same numbers: `{after}` holds the values of the column `{before}`, in order; "
                "the result has one derivative per value, along one axis."),
        safe=True), before
