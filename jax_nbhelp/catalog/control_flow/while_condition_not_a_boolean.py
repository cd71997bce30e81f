"""A ``lax.while_loop`` whose condition returns something other than one boolean: a number
(``lambda c: c``), or an array of booleans (``lambda c: c < limits``) (``TypeError: cond_fun
must return a boolean scalar, but got output type(s) [ShapedArray(float32[],
weak_type=True)].``).

Python's ``while c:`` accepts any number; a compiled loop needs one boolean. The
explanation says what the condition returned and what to write: a comparison
(``c != 0`` is what ``while c:`` means for a number), or ``.all()``/``.any()`` of a boolean
array. No fix: for an array, which of the two is the user's choice.

Reports: jax-ml/jax#1686 and jax-ml/jax#2004 (while loops whose types differ from what the
loop expects), the JAX control-flow tutorial's loop conditions.
"""

from __future__ import annotations

import re

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import LAX_IMPORTS, NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match

CODE = "JNH533"
TITLE = "A while_loop condition that is not one boolean"
MESSAGE = "cond_fun must return a boolean scalar"

_TYPE_RE = re.compile(r"got output type\(s\) \[ShapedArray\((?P<dtype>\w+)\[(?P<shape>[^\]]*)\]")

EXAMPLES = (
    corrected_cell((LAX_IMPORTS,), "left = lax.while_loop(lambda n: n, lambda n: n - 1.0, 3.0)",
                   "left = lax.while_loop(lambda n: n != 0, lambda n: n - 1.0, 3.0)", NO_FIX,
                   "float(left) == 0.0"),
    corrected_cell((LAX_IMPORTS, "limits = jnp.array([2.0, 3.0])"),
                   "done = lax.while_loop(lambda c: c < limits, lambda c: c + 1, jnp.zeros(2))",
                   "done = lax.while_loop(lambda c: (c < limits).any(), lambda c: c + 1, "
                   "jnp.zeros(2))", NO_FIX, "done.tolist() == [3.0, 3.0]"),
)

WHY = _entry.prose("""
A compiled while_loop asks its condition one question per step: go on, or stop. So the
condition must return one boolean, not a number (Python would treat a nonzero number as
True; write the comparison) and not an array of booleans (say whether all or any of them
must hold).
""")


MATCH = Match(MESSAGE, "TypeError")


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    found = _TYPE_RE.search(link.message)
    location = ctx.call_site()
    subject = _tracing.quoted_line(location, "Your while_loop")
    notes: list[str] = []
    if found is not None and found["dtype"] == "bool":
        got = f"an array of booleans, bool[{found['shape']}]"
        notes.append("Say whether the loop goes on while all of them hold (`.all()`) or "
                     "while any does (`.any()`).")
    elif found is not None:
        got = f"a number, {found['dtype']}[{found['shape']}], not a boolean"
        notes.append("Return a comparison: `c != 0` is what Python's `while c:` means for "
                     "a number.")
    else:
        got = "something other than one boolean"
    explanation = f"{subject} has a condition that returns {got}."
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), notes=notes,
                            error=link.summary.splitlines()[0])
