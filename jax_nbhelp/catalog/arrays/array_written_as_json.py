"""A JAX array handed to Python's ``json`` (``TypeError: Object of type ArrayImpl is not JSON
serializable``): ``json.dumps({"loss": loss})`` where ``loss`` came out of a jitted step,
``json.dump(history, f)`` of a list of JAX scalars, a logger that writes its metrics as
JSON.

``json`` writes Python's own numbers, strings, lists and dicts; it writes neither JAX's
arrays nor NumPy's, and JAX declined to make its arrays JSON-serializable on the grounds
that NumPy's are not either: ``tolist()`` is the conversion for both. Python raises the
error, inside json's encoder; the object json's frame held is an instance of JAX's array
class, so it counts as JAX's (``provenance``).

Where the user's line calls ``json.dumps`` once, without a ``default=`` of its own, the fix
passes ``default=lambda v: v.tolist()``: json calls it for each value it cannot write
itself, and a JAX array's ``tolist()`` is its numbers as Python ints and floats
(a float32 as the Python float of exactly that value), nested in lists by its shape. The
dict and its keys stay as written, in their order. ``json.dump`` has no such fix: it has
written the first part of the record to its file when it meets the array, and running it
again would write the whole record after that part. Elsewhere too (a logging library that
encodes the metrics itself) the card says what to convert.

Reports: jax-ml/jax#12862 (JAX's arrays asked to be JSON-serializable, for ``wandb.log`` and
HTTP responses; the answer: ``arr.tolist()``, as for NumPy's), Joshuaalbert/jaxns#171 (a
results tuple of JAX arrays written with ``json.dump``), deborahLevy130/seathru_NeRF#2
(``wandb.log`` of a JAX array).
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import NO_FIX, NUMPY_IMPORTS, Example, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH510"
TITLE = "A JAX array written as JSON"
TRIGGERS = ("is not JSON serializable",)

_MESSAGE = re.compile(r"^Object of type (?P<type>\w+) is not JSON serializable$")
_HOOK = "lambda v: v.tolist()"

_METRICS = "import json\nloss = jnp.float32(0.5)\nsteps = jnp.arange(3)"

EXAMPLES = (
    # a metrics dict of JAX values: json calls the hook for each array
    corrected_cell((NUMPY_IMPORTS, _METRICS),
                   "text = json.dumps({'loss': loss, 'steps': steps})",
                   "text = json.dumps({'loss': loss, 'steps': steps}, default=lambda v: "
                   "v.tolist())",
                   "Write arrays as lists",
                   "text == '{\"loss\": 0.5, \"steps\": [0, 1, 2]}'"),
    # inside the user's own helper: the call there gets the hook
    Example(setup=(NUMPY_IMPORTS,
                   _METRICS + "\ndef encode(record):\n    return json.dumps(record)"),
            failing="text = encode([loss, 1.5])",
            fix="Write arrays as lists", check="text == '[0.5, 1.5]'",
            fixed=(NUMPY_IMPORTS, _METRICS + "\ndef encode(record):\n"
                   "    return json.dumps(record, default=lambda v: v.tolist())",
                   "text = encode([loss, 1.5])")),
    # json.dump has written part of the record to the file when it meets the array: the fix
    # would write the record again after that part, so the card only says what to convert
    corrected_cell((NUMPY_IMPORTS, _METRICS + "\nimport io\nbuffer = io.StringIO()"),
                   "json.dump([1.5, loss], buffer)",
                   "json.dump([1.5, loss.tolist()], buffer)", NO_FIX,
                   "buffer.getvalue().endswith('[1.5, 0.5]')"),
)

WHY = _entry.prose("""
Python's json module writes Python numbers, strings, lists and dicts, and nothing else
unless a default= function converts it. JAX arrays, like NumPy arrays, are not among
them: tolist() gives an array's numbers as Python ints and floats, nested by its shape.
""")


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    link = ctx.top
    found = _MESSAGE.match(link.message) if link.is_a("TypeError") else None
    if found is None:
        return None
    location = ctx.deepest_user_location()
    subject = _tracing.quoted_line(location, "Your code")
    call = _json_call(ctx, location)
    fixes: tuple[Fix, ...] = ()
    if call is not None and location is not None:
        fixes = (_hook_fix(ctx, location, *call),)
        explanation = (f"{subject} hands json a JAX array ({found['type']}), and json writes "
                       "only Python's own numbers, strings, lists and dicts: an array's "
                       "tolist() is its numbers as Python's.")
    else:
        explanation = (f"{subject} hands a JAX array ({found['type']}) to code that writes it "
                       "as JSON, and json writes only Python's own numbers, strings, lists "
                       "and dicts: convert the array first, with float(x) for one number or "
                       "x.tolist() for an array.")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=fixes)


def _json_call(ctx: ErrorContext, location: Location | None
               ) -> tuple[ast.Call, str] | None:
    """The one ``json.dumps`` call the line writes, with no ``default=`` or encoder class of
    its own, and the line's code. (``json.dump`` has written part of the record to its file
    by the time it meets the array: run again, it would write the record after that part.)"""
    if location is None:
        return None
    module = ctx.alias("json") or "json"
    names = {f"{module}.dumps"} | ({"dumps"} if "dumps" in ctx.names_for("json.dumps") else set())
    calls, code = _tracing.calls_on(location)
    found = [c for c in calls if dotted(c.func) in names]
    if len(found) != 1 or any(k.arg in (None, "default", "cls") for k in found[0].keywords) \
            or not found[0].args or any(isinstance(a, ast.Starred) for a in found[0].args):
        return None
    return found[0], code


def _hook_fix(ctx: ErrorContext, location: Location, call: ast.Call, code: str) -> Fix:
    before = _tracing.segment(code, call)
    after = f"{before[:-1].rstrip().rstrip(',')}, default={_HOOK})"
    return rewrite_fix(
        ctx, location, _tracing.replacing(call, before, after), label="Write arrays as lists",
        summary=(f"Pass default={_HOOK} to the json call on line {location.lineno}: json "
                 "calls it for each value it cannot write; then re-run."),
        safety=("Same values: each JAX array is written as its numbers (tolist(): Python ints "
                "and floats, a float32 as the Python float of exactly that value), nested in "
                "lists by its shape; everything else is written as before, in its order."),
        safe=True)
