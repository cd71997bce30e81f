"""A ``lax.while_loop`` whose condition returns something other than one boolean: a number
(``lambda c: c``), or an array of booleans (``lambda c: c < limits``) (``TypeError: cond_fun
must return a boolean scalar, but got output type(s) [ShapedArray(float32[],
weak_type=True)].``).

Python's ``while c:`` accepts any number; a compiled loop needs one boolean. The
explanation says what the condition returned and what to write: a comparison
(``c != 0`` is what ``while c:`` means for a number), or ``.all()``/``.any()`` of a boolean
array. The fix writes the comparison for a number, and ``.all()`` for a boolean array of one
element (where all, any and the element agree); for a longer array, which of the two is the
user's choice.

Reports: jax-ml/jax#1686 and jax-ml/jax#2004 (while loops whose types differ from what the
loop expects), the JAX control-flow tutorial's loop conditions.
"""

from __future__ import annotations

import ast
import math
import re

from jax_nbhelp.catalog import _entry, _passed_function, _tracing
from jax_nbhelp.catalog._example import LAX_IMPORTS, NO_FIX, corrected, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH533"
TITLE = "A while_loop condition that is not one boolean"
MESSAGE = "cond_fun must return a boolean scalar"

_TYPE_RE = re.compile(r"got output type\(s\) \[ShapedArray\((?P<dtype>\w+)\[(?P<shape>[^\]]*)\]")

EXAMPLES = (
    corrected_cell((LAX_IMPORTS,), "left = lax.while_loop(lambda n: n, lambda n: n - 1.0, 3.0)",
                   "left = lax.while_loop(lambda n: n != 0, lambda n: n - 1.0, 3.0)",
                   "Return n != 0", "float(left) == 0.0"),
    # one boolean in an array of one element: .all(), .any() and the element agree
    corrected(LAX_IMPORTS, "limit = jnp.array([3.0])\n\ndef below(c):\n    return c < limit",
              "limit = jnp.array([3.0])\n\ndef below(c):\n    return (c < limit).all()",
              "top = lax.while_loop(below, lambda c: c + 1.0, 0.0)",
              "Return (c < limit).all()", "float(top) == 3.0"),
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
    fix = _condition_fix(ctx, found["dtype"], found["shape"]) if found is not None else None
    if fix is not None:
        notes = []
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), notes=notes,
                            fixes=(fix,) if fix is not None else (),
                            error=link.summary.splitlines()[0])


# an expression these bind tighter than ``!=`` and a method call: written without parentheses
_TIGHT = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant)


def _condition_fix(ctx: ErrorContext, dtype: str, shape: str) -> Fix | None:
    """The condition rewritten to the one boolean it means, where only one exists: a number
    ``n`` as ``n != 0`` (what Python's ``while n:`` tests, nan included), or a boolean array
    of one element as ``(c < limit).all()`` (all, any and the element agree)."""
    dims = [int(d) for d in shape.replace(" ", "").split(",") if d] if shape.strip() else []
    if any(d < 0 for d in dims):
        return None
    size = math.prod(dims)
    number = dtype != "bool" and not dims
    if not number and not (dtype == "bool" and size == 1):
        return None
    passed = _passed_function.passed_function(ctx, "cond_fun")
    returned = passed.returned if passed is not None else None
    if passed is None or returned is None or returned.lineno != returned.end_lineno:
        return None
    before = _tracing.segment(passed.code, returned)
    written = before if isinstance(returned, _TIGHT) else f"({before})"
    if number:
        after = (f"{before} != 0" if isinstance(returned, (*_TIGHT, ast.BinOp, ast.UnaryOp))
                 else f"({before}) != 0")
        summary = (f"Return `{after}`: the one boolean Python's `while` reads from a number "
                   "(true where it is not zero).")
        safety = ("Same loop: `!= 0` is the test Python's truth of a number makes (nan "
                  "counts as true in both).")
    else:
        after = f"{written}.all()"
        summary = (f"Return `{after}`: the condition's only element, as the one boolean the "
                   "loop needs.")
        safety = (f"Same loop: the condition holds one element ({dtype}[{shape}]), and "
                  "`.all()` of one element is that element.")
    transform = _tracing.replacing(returned, before, after)
    return rewrite_fix(ctx, passed.location, transform, label=f"Return {after}"
                       if len(after) <= 30 else "Return one boolean",
                       summary=summary, safety=safety, safe=True)
