"""A Pallas kernel that stores a value of another dtype than its ref's: ``o_ref[...] = x *
2.0`` into an int32 output, or a float32 result into a bfloat16 ref (``ValueError: Invalid
dtype for `swap`. Ref dtype: int32. Value dtype: float32.``).

Pallas does not convert on a store. The fix casts the stored value to the ref's dtype
(``(value).astype(o_ref.dtype)``), which is what a store into that ref means; where the
ref's dtype is narrower (float32 into bfloat16, or a float into an int), values are rounded
or truncated, and the safety line says so. Making ``out_shape`` the value's dtype is the
other way out, named in the note.

Reports: jax-ml/jax#27683 (``v[...] += 1.5`` on an int ref gave garbage before the check),
jax-ml/jax#22197 (kernels mixing bfloat16 refs and float32 arithmetic).
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import corrected
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH514"
TITLE = "Kernel stores a value of another dtype than its ref"
MESSAGE = "Invalid dtype for `swap`"

_DTYPES = re.compile(r"Ref dtype: (?P<ref>\w+)\. Value dtype: (?P<value>\w+)")

_SETUP = ("import jax, jax.numpy as jnp\nfrom jax.experimental import pallas as pl")
_KERNEL = "def halve(x_ref, o_ref):\n    o_ref[...] = x_ref[...] / 2"
_FIXED = "def halve(x_ref, o_ref):\n    o_ref[...] = (x_ref[...] / 2).astype(o_ref.dtype)"
_CALL = ("half = pl.pallas_call(halve, out_shape=jax.ShapeDtypeStruct((8,), jnp.bfloat16),\n"
         "                      interpret=True)(jnp.arange(8.0))")

EXAMPLES = (
    corrected(_SETUP, _KERNEL, _FIXED, _CALL, "Cast the stored value to o_ref.dtype",
              "half.dtype == jnp.bfloat16 and half.tolist()[:3] == [0.0, 0.5, 1.0]"),
)

WHY = _entry.prose("""
A Pallas ref has one dtype, set by out_shape (or the input's dtype, or the scratch shape),
and a store writes the value's bits into it: Pallas converts nothing. Cast the value to the
ref's dtype (rounding where the ref is narrower), or give the ref the dtype the kernel
computes.
""")


def _store(location: Location) -> ast.Assign | None:
    parsed = _tracing.parse(location.source)
    if parsed is None:
        return None
    for node in ast.walk(parsed[0]):
        if (isinstance(node, ast.Assign) and node.lineno <= location.lineno
                <= (node.end_lineno or 0) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Subscript)):
            return node
    return None


def _narrows(value: str, ref: str) -> bool:
    try:
        import jax.numpy as jnp

        return str(jnp.promote_types(value, ref)) != ref
    except Exception:
        return True


MATCH = Match(MESSAGE, "ValueError", _DTYPES)


def diagnose(ctx: ErrorContext, link: Link, dtypes: re.Match[str]) -> Diagnosis | None:
    ref_dtype, value_dtype = dtypes["ref"], dtypes["value"]
    location = ctx.deepest_user_location()
    store = _store(location) if location is not None else None
    subject = _tracing.quoted_line(location, "A store in the kernel")
    explanation = (f"{subject} stores a {value_dtype} value into a {ref_dtype} ref, and a "
                   "Pallas store does not convert.")
    fixes: list[Fix] = []
    if store is not None and location is not None:
        ref = ast.unparse(store.targets[0].value)  # type: ignore[attr-defined]
        fixes.append(_fix(ctx, location, ref, ref_dtype, value_dtype))
    notes = [f"If the output should be {value_dtype}, give out_shape (or the scratch shape) "
             f"that dtype instead."]
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=fixes, notes=notes,
                            error=link.summary.splitlines()[0])


def _fix(ctx: ErrorContext, location: Location, ref: str, ref_dtype: str,
         value_dtype: str) -> Fix:
    narrows = _narrows(value_dtype, ref_dtype)

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.wrap_in_call import cast_value

        return cast_value(source, location.lineno, f"{ref}.dtype")

    return rewrite_fix(
        ctx, location, transform, label=f"Cast the stored value to {ref}.dtype",
        summary=(f"Cast the value stored on line {location.lineno} to {ref}.dtype "
                 f"({ref_dtype}); then re-run."),
        safety=(f"The values are rounded from {value_dtype} to {ref_dtype}, the precision "
                f"{ref} holds: any store into it keeps that much." if narrows else
                f"Same values: every {value_dtype} value is exact in {ref_dtype}."),
        safe=not narrows)
