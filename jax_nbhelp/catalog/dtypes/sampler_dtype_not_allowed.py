"""A ``jax.random`` sampler asked for a dtype it cannot draw: ``jax.random.normal(key, (3,),
dtype=jnp.int32)`` (``ValueError: dtype argument to `normal` must be a float or complex dtype,
got int32``), or ``jax.random.randint(..., dtype=jnp.float32)`` (``TypeError: randint only
accepts integer dtypes, got float32``).

Continuous samplers draw real numbers; ``randint`` draws integers. The explanation names the
sampler that draws what was asked for, with the call's own key and shape. No fix: whether a
float draw should be rounded, or integers drawn and converted, is the user's choice and
gives other numbers. The exception is a sampler of counts that returns them as floats
(``binomial``): its draws, cast to the integer dtype asked for, are the same numbers.

Reports: jax-ml/jax#3317 (``random.normal(key, dtype=np.int32)`` gave a cryptic error, which
led to this check in jax-ml/jax#3320), jax-ml/jax#28457 (``binomial`` asked for int32).
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.catalog import _entry, _operands, _tracing
from jax_nbhelp.catalog._example import NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH512"
TITLE = "A jax.random sampler asked for a dtype it cannot draw"
FLOAT_ONLY = "must be a float or complex dtype, got"
FLOAT_ONLY_OLD = "must be a float dtype, got"
INT_ONLY = "only accepts integer dtypes, got"

_FLOAT_RE = re.compile(r"dtype argument to `(?P<sampler>\w+)` must be a float(?: or complex)? "
                       r"dtype, got (?P<dtype>\w+)")
_INT_RE = re.compile(r"(?P<sampler>\w+) only accepts integer dtypes, got (?P<dtype>\w+)")

_IMPORTS = "import jax, jax.numpy as jnp\nkey = jax.random.key(0)"

EXAMPLES = (
    corrected_cell((_IMPORTS,), "dice = jax.random.uniform(key, (4,), dtype=jnp.int32)",
                   "dice = jax.random.randint(key, (4,), 1, 7)", NO_FIX,
                   "dice.dtype == jnp.int32 and bool(((dice >= 1) & (dice <= 6)).all())"),
    # binomial draws counts but returns floats: the same draws, cast (jax-ml/jax#28457)
    corrected_cell((_IMPORTS,), "c = jax.random.binomial(key, 10, 0.5, (4,), dtype=jnp.int32)",
                   "c = jax.random.binomial(key, 10, 0.5, (4,)).astype(jnp.int32)",
                   "Cast the draws to int32",
                   "c.dtype == jnp.int32 and bool(((c >= 0) & (c <= 10)).all())"),
)

WHY = _entry.prose("""
Each jax.random sampler draws from one kind of distribution: normal, uniform, gamma and the
other continuous ones draw real numbers (float or complex dtypes); randint and the other
discrete ones draw integers. Ask the sampler of the kind you want for its own dtype, and
convert afterwards only if you mean to.
""")



MATCH = Match(FLOAT_ONLY, also=(FLOAT_ONLY_OLD, INT_ONLY))


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    continuous = _FLOAT_RE.search(link.message)
    discrete = _INT_RE.search(link.message)
    found = continuous or discrete
    if found is None:
        return None
    sampler, dtype = found["sampler"], found["dtype"]
    location = ctx.deepest_user_location()
    jax = ctx.alias("jax") or "jax"
    call = next(iter(_operands.operations(ctx, location, (sampler,))), None)
    args = [o.text for o in call.operands[:2]] if call is not None else []
    key, shape = (args + ["key", "shape"][len(args):])[:2]
    subject = _tracing.quoted_line(location, "Your code")
    if continuous is not None:
        explanation = (f"{subject} asks {sampler}, which draws real numbers, for {dtype} "
                       "values.")
        notes = [f"For random integers, draw them with randint: "
                 f"`{jax}.random.randint({key}, {shape}, minval, maxval)` (maxval excluded).",
                 f"If you want {sampler}'s real numbers as integers, draw floats and convert "
                 "them on purpose (`jnp.floor(...).astype(...)`): the conversion decides "
                 "the distribution you get."]
    else:
        explanation = f"{subject} asks randint, which draws integers, for {dtype} values."
        notes = [f"For real numbers in a range, draw them with "
                 f"`{jax}.random.uniform({key}, {shape}, minval=..., maxval=...)`; for "
                 f"integers as {dtype}, draw with randint and convert: "
                 f"`{jax}.random.randint(...).astype(jnp.{dtype})`."]
    fixes: tuple[Fix, ...] = ()
    if continuous is not None and sampler in _COUNTS and call is not None \
            and location is not None and dtype.startswith(("int", "uint")):
        counted = _counts_fix(ctx, location, call, sampler, dtype)
        if counted is not None:
            explanation = (f"{subject} asks {sampler} for {dtype} values; {sampler} draws "
                           "counts, whole numbers it returns as floats, and takes only a "
                           "float dtype.")
            fixes, notes = (counted,), []
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), notes=notes, fixes=fixes,
                            error=link.summary.splitlines()[0])


# samplers of counts that return them as floats (whole numbers below 2**24 are exact there)
_COUNTS = ("binomial",)


def _counts_fix(ctx: ErrorContext, location: Location, call: _operands.Operation,
                sampler: str, dtype: str) -> Fix | None:
    """``jax.random.binomial(key, n, p, dtype=jnp.int32)`` (jax-ml/jax#28457): the same
    draws, as floats, cast to the dtype the call asked for."""
    node = call.node
    if not isinstance(node, ast.Call) or node.lineno != node.end_lineno:
        return None
    asked = [k for k in node.keywords if k.arg == "dtype"]
    if len(asked) != 1:
        return None
    before = call.text()
    items: list[ast.expr | ast.keyword] = [*node.args, *node.keywords]
    spans = sorted((n.col_offset, n.end_col_offset or n.col_offset) for n in items)
    at = spans.index((asked[0].col_offset, asked[0].end_col_offset or asked[0].col_offset))
    # from the end of the argument before it (its comma goes too), else to the next one
    start = spans[at - 1][1] if at else spans[at][0]
    end = spans[at][1] if at or len(spans) == 1 else spans[at + 1][0]
    raw = before.encode()
    kept = (raw[:start - node.col_offset] + raw[end - node.col_offset:]).decode()
    written = _tracing.segment(call.code, asked[0].value)
    after = f"{kept}.astype({written})"
    return rewrite_fix(
        ctx, location, _tracing.replacing(node, before, after), label=f"Cast the draws to {dtype}",
        summary=(f"Write `{after}` on line {location.lineno}: {sampler} draws floats, which "
                 f"are then cast to {dtype}; then re-run."),
        safety=(f"Same draws: {sampler}'s counts are whole numbers, exact as floats below "
                f"2**24, so as {dtype} they are the same numbers."),
        safe=True)
