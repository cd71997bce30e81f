"""``jax.grad`` of a function that returns ``(value, aux)`` without ``has_aux=True``
(``TypeError: Gradient only defined for scalar-output functions. Output was (...)``).

Returning the loss together with what was computed on the way (predictions, metrics) is the
usual shape of a loss function; ``has_aux=True`` tells grad that the first element is the
value to differentiate and the rest comes back beside the gradient. Where the call's
result is assigned to a name (``g = jax.grad(f)(x)``, or ``v, g = jax.value_and_grad(f)(x)``),
the fix passes ``has_aux=True`` and binds the auxiliary output to a new name, so the code
after it reads the gradient as before.

Reports: jax-ml/jax#6213 (the JAX-101 notebook's loss returning ``(loss, aux)`` to
``jax.grad``).
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH522"
TITLE = "jax.grad of a function that returns (value, aux)"
MESSAGE = "Gradient only defined for scalar-output functions. Output was ("

_LOSS = ("def loss(w):\n    prediction = w * 2.0\n"
         "    return jnp.sum(prediction ** 2), prediction")

EXAMPLES = (
    corrected_cell((JAX_IMPORTS, _LOSS), "g = jax.grad(loss)(jnp.ones(2))",
                   "g, aux = jax.grad(loss, has_aux=True)(jnp.ones(2))", "Pass has_aux=True",
                   "g.tolist() == [8.0, 8.0] and aux.tolist() == [2.0, 2.0]"),
    corrected_cell((JAX_IMPORTS, _LOSS), "value, g = jax.value_and_grad(loss)(jnp.ones(2))",
                   "(value, aux), g = jax.value_and_grad(loss, has_aux=True)(jnp.ones(2))",
                   "Pass has_aux=True", "float(value) == 8.0 and g.tolist() == [8.0, 8.0]"),
    # already unpacked as has_aux=True returns it: only the keyword is missing
    corrected_cell((JAX_IMPORTS, _LOSS), "(value, aux), g = jax.value_and_grad(loss)(jnp.ones(2))",
                   "(value, aux), g = jax.value_and_grad(loss, has_aux=True)(jnp.ones(2))",
                   "Pass has_aux=True", "float(value) == 8.0 and aux.tolist() == [2.0, 2.0]"),
)

WHY = _entry.prose("""
jax.grad differentiates a function that returns one number. A loss function often returns
more: the loss and what was computed on the way (predictions, metrics). has_aux=True says
so: grad differentiates the first element and hands the second back unchanged beside the
gradient, as (gradient, aux).
""")

_GRADS = ("grad", "value_and_grad")
_USED = re.compile(r"\w+")


def _assigned_grad_call(location: Location) -> tuple[str, str] | None:
    """``(grad or value_and_grad, the differentiated function)`` when the line assigns the
    result of ``jax.grad(f)(...)``."""
    parsed = _tracing.parse(location.source)
    if parsed is None:
        return None
    for node in ast.walk(parsed[0]):
        if (isinstance(node, ast.Assign) and node.lineno <= location.lineno
                <= (node.end_lineno or 0) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Call)):
            kind = (dotted(node.value.func.func) or "").rsplit(".", 1)[-1]
            if kind in _GRADS and node.value.func.args:
                return kind, ast.unparse(node.value.func.args[0])
    return None


def _free_name(ctx: ErrorContext, location: Location) -> str:
    used = set(_USED.findall(location.source or ""))
    used |= set(ctx.value_types)
    return next(name for name in ("aux", "aux_out", "extras", "aux_1", "aux_2")
                if name not in used)


MATCH = Match(MESSAGE, "TypeError")


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    location = ctx.call_site()
    found = _assigned_grad_call(location) if location is not None else None
    function = found[1] if found is not None else "the function"
    subject = _tracing.quoted_line(location, "Your code")
    explanation = (f"{subject} differentiates {function}, which returns a tuple (the value "
                   "and something beside it), without has_aux=True.")
    fixes: list[Fix] = []
    notes: list[str] = []
    if found is not None and location is not None:
        fixes.append(_fix(ctx, location, function, _free_name(ctx, location)))
    else:
        notes.append(f"Pass has_aux=True to jax.grad: it then returns (gradient, aux). If "
                     f"{function} returns several losses instead, differentiate their sum.")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=fixes, notes=notes,
                            error=link.summary.split(" Output was", 1)[0])


def _fix(ctx: ErrorContext, location: Location, function: str, aux: str) -> Fix:
    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.has_aux import add_has_aux

        return add_has_aux(source, location.lineno, aux)

    return rewrite_fix(
        ctx, location, transform, label="Pass has_aux=True",
        summary=(f"Pass has_aux=True on line {location.lineno}, so grad differentiates the "
                 f"first thing {function} returns; the rest is bound to {aux}. Then re-run."),
        safety=(f"The gradient of {function}'s first output, and its other output "
                f"unchanged in {aux}: what returning (value, aux) means to jax.grad."),
        safe=True)
