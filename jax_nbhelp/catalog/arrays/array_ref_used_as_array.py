"""An array ref passed where a ``jax.numpy`` function takes an array: ``jnp.sin(x_ref)`` with
``x_ref = jax.new_ref(...)`` (``TypeError: sin requires ndarray or scalar arguments, got
<class '...DynamicJaxprTracer'> at position 0.``).

A ref is a mutable box that holds an array, not an array: ``x_ref[...]`` reads what it
holds. JAX's message names an internal class; the live value on the user's line shows the
ref. The fix reads the ref where it is passed (``jnp.sin(x_ref[...])``): the array it holds,
so the same values.

Reports: jax-ml/jax#39288 and jax-ml/jax#39290 (refs under vmap and cond behaving
unexpectedly), jax-ml/jax#27683 (arithmetic on a ref). JAX's docs teach it in the 101
state tutorial ("can't do math on refs").
"""

from __future__ import annotations

import re

from jax_nbhelp.catalog import _entry, _operands, _tracing
from jax_nbhelp.catalog._example import corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH506"
TITLE = "An array ref where a function takes an array"
MESSAGE = "requires ndarray or scalar arguments, got"
OLD_MESSAGE = "Attempting to pass a Ref"  # jax 0.8: "... to a primitive: cos -- did you ..."
TRIGGERS = (MESSAGE, OLD_MESSAGE)

_MESSAGE_RE = re.compile(r"(?P<function>\w+) requires ndarray or scalar arguments, got "
                         r"<class '[^']+'> at position (?P<position>\d+)")
_OLD_RE = re.compile(r"Attempting to pass a Ref .*? to a primitive: (?P<function>\w+)")

EXAMPLES = (
    corrected_cell(("import jax, jax.numpy as jnp", "angle_ref = jax.new_ref(jnp.zeros(2))"),
                   "wave = jnp.cos(angle_ref)", "wave = jnp.cos(angle_ref[...])",
                   "Read angle_ref[...]", "wave.tolist() == [1.0, 1.0]"),
)

WHY = _entry.prose("""
A ref (jax.new_ref) is a mutable box that holds an array, so that code can write into it; it
is not itself an array. Read what it holds with ref[...] (or ref[i] for part of it) and
compute with that; write results back with ref[...] = value.
""")


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    link = ctx.find(MESSAGE) or ctx.find(OLD_MESSAGE)
    found = (_MESSAGE_RE.search(link.message) or _OLD_RE.search(link.message)
             if link is not None else None)
    if link is None or found is None:
        return None
    function = found["function"]
    location = ctx.deepest_user_location()
    candidates = [(op, index) for op in _operands.operations(ctx, location, (function,))
                  for index, operand in enumerate(op.operands)
                  if operand.value is not None and operand.value.kind == "ref"]
    if not candidates or location is None:
        return None  # not a ref: a list or tuple is JNH502's, anything else not known
    operation, position = candidates[0]
    if "position" in found.groupdict() and found["position"] is not None:
        position = int(found["position"])
    operand = operation.operands[position]
    if operand.value is None or operand.value.kind != "ref":
        return None
    subject = _tracing.quoted_line(location, "Your code")
    explanation = (f"{subject} passes `{operand.text}`, {operand.value.summary}, to {function}: "
                   "a ref holds an array and is not one.")
    fixes = [_fix(ctx, location, operation.spelled.rsplit(".", 1)[-1], position,
                  operand.text)]
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=fixes,
                            error=link.summary.splitlines()[0])


def _fix(ctx: ErrorContext, location: Location, function: str, position: int,
         ref: str) -> Fix:
    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.wrap_in_call import read_ref_argument

        return read_ref_argument(source, location.lineno, function, position)

    return rewrite_fix(
        ctx, location, transform, label=f"Read {ref}[...]",
        summary=(f"Pass {ref}[...], the array {ref} holds, to {function} on line "
                 f"{location.lineno}; then re-run."),
        safety=f"Same values: {ref}[...] is the array {ref} holds now.",
        safe=True)
