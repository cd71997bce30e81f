"""``jax_debug_nans`` stopped at the operation that made a NaN (``FloatingPointError: invalid
value (nan) encountered in log``).

The switch re-runs a jitted computation operation by operation and raises at the first one
whose result holds a NaN; the traceback's last user line is where that operation was
written. The explanation names that line, the operation, what makes that operation produce
a NaN (a logarithm or square root of a negative number, 0/0, inf - inf, 0 * inf), and the
operands as read from the line. No fix: the NaN is what the math gives for these inputs;
guarding it (``jnp.where`` before the operation, a clip) changes the numbers on purpose.

Reports: jax-ml/jax#25701 (``jnp.log(-10)`` with debug_nans on), jax-ml/jax#7634
(``logsumexp`` inside a scan), jax-ml/jax#22291 and jax-ml/jax#7510 (NaNs reported in
``convert_element_type`` and ``jnp.quantile``). JAX's docs teach it in the debugging flags
page and the 201 debugging tutorial.
"""

from __future__ import annotations

import re

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext

CODE = "JNH581"
TITLE = "jax_debug_nans stopped at the operation that made a NaN"
TRIGGERS = ("FloatingPointError",)

_MESSAGE_RE = re.compile(r"invalid value \((?P<kind>nan|inf)\) encountered in "
                         r"(?P<op>[\w().]+)")
# What makes each operation produce a NaN.
_CAUSES = {
    "log": "the logarithm of a negative number (and log(0) is -inf)",
    "log1p": "log1p of a number below -1",
    "sqrt": "the square root of a negative number",
    "rsqrt": "the inverse square root of a negative number",
    "pow": "a negative number raised to a fractional power",
    "div": "0 / 0 or inf / inf",
    "rem": "a remainder by 0",
    "mul": "0 * inf (an inf made earlier, by a division by 0 or an overflowing exp)",
    "sub": "inf - inf",
    "add": "inf + (-inf)",
    "acos": "arccos outside [-1, 1]",
    "asin": "arcsin outside [-1, 1]",
    "atanh": "arctanh outside (-1, 1)",
    "acosh": "arccosh below 1",
    "lgamma": "lgamma of a negative integer",
    "digamma": "digamma of a negative integer",
}

_SETUP = "import jax, jax.numpy as jnp"

EXAMPLES = (
    # The switch as a context manager: it is off again after the cell, whatever happens.
    corrected_cell((_SETUP, "@jax.jit\ndef spread(x):\n    return jnp.sqrt(x - 1.0)"),
                   "with jax.debug_nans(True):\n    s = spread(jnp.array([2.0, 0.5]))",
                   "with jax.debug_nans(True):\n    s = spread(jnp.array([2.0, 1.5]))",
                   NO_FIX, "float(s[0]) == 1.0"),
)

WHY = _entry.prose("""
With jax_debug_nans on, JAX checks every jitted result for NaNs; when one has any, it runs
the computation again one operation at a time and raises at the first operation that made a
NaN. That operation's line is where to look: its inputs were outside the range where the
math is defined. Turn the switch off once the NaN is found
(jax.config.update('jax_debug_nans', False)): it slows every call.
""")


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    link = next((link for link in ctx.chain if link.is_a("FloatingPointError")), None)
    found = _MESSAGE_RE.search(link.message) if link is not None else None
    if link is None or found is None:
        return None
    op = found["op"].removeprefix("jit(").rstrip(")")
    kind = "NaN" if found["kind"] == "nan" else "an inf"
    location = ctx.deepest_user_location()
    subject = _tracing.quoted_line(location, "An operation in your code")
    cause = _CAUSES.get(op)
    arrays = [v for v in ctx.values_at(location) if v.is_array]
    inputs = (" Its inputs there: " + ", ".join(f"{v.text} is {v.summary}" for v in arrays)
              + ".") if arrays else ""
    explanation = (f"{subject} computes {op}, and jax_debug_nans stopped there: its result "
                   f"holds a {kind}.{inputs}")
    notes = []
    if cause is not None:
        notes.append(f"{op} gives NaN for {cause}. Check the values reaching it, or guard "
                     "them on purpose (jnp.where before the operation, a clip).")
    notes.append("Under jit the whole computation was checked first; the failing operation "
                 "was then found by running it again one operation at a time.")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.call_site(), notes=notes,
                            error=link.summary.splitlines()[0])
