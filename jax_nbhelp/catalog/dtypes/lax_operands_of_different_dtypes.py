"""A ``jax.lax`` operation given operands of different dtypes: ``lax.add(counts, weights)``
with an int32 and a float32 array, or ``lax.dynamic_update_slice(cache, update, ...)`` with a
bfloat16 cache and a float32 update (``TypeError: lax.add requires arguments to have the same
dtypes, got int32, float32.``).

``jax.lax`` is the layer below ``jax.numpy``: it promotes nothing. For arithmetic the fixes are
the ``jax.numpy`` function JAX's own tip names (it promotes the operands by JAX's rules) or an
explicit cast of the operand that differs to the promoted dtype; both compute the same
values. For an update, the update is cast to the dtype of the array it is written into,
which is what storing into that array means: NumPy's ``x[i] = v`` casts ``v`` the same way
(a narrower dtype rounds, and the safety line says so; ``x.at[i].set(v)`` does too, with a
warning that asks for the cast to be written out), and the result keeps the array's dtype.
For a convolution, the filter is cast to the dtype of the data it is applied to: the data's
dtype is the precision the user chose to compute in (float16 signals kept to save memory),
and the filter is the convolution's parameter; the safety line says where the filter's
values round. JAX's message lists the checked operands' dtypes in their order (for
``lax.select_n``, whose message says ``lax.select``, its cases', not the case index's): an
operand the line computes (``(out + h) / 2``), whose value is not read, has the dtype the
message lists for it.

Reports: kuprel/min-dalle#13 (a float16 model updating its KV cache with a float32 slice),
jax-ml/jax#26699 (``lax.mul`` of float64 and int64 in ``jax.experimental.jet``),
huggingface/diffusers#3039 (``lax.select`` in a bfloat16 scheduler),
v0lta/Jax-Wavelet-Toolbox#6 (float64 wavelet filters over float32 images, fixed by building
the filters in the data's dtype), fbcotter/pytorch_wavelets#47 (the same for float16 data:
the filters cast to the data's precision). JAX's docs teach it
in Key concepts and the 101 arrays tutorial (``lax.add(1, 1.0)``).
"""

from __future__ import annotations

import re
from dataclasses import replace

from jax_nbhelp.catalog import _entry, _operands, _tracing
from jax_nbhelp.catalog._example import LAX_IMPORTS, Example, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.line_values import Value
from jax_nbhelp.diagnosis.match import Match
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH511"
TITLE = "A jax.lax operation given operands of different dtypes"
MESSAGE = "requires arguments to have the same dtypes, got"

_MESSAGE_RE = re.compile(r"(?:lax\.)?(?P<op>\w+) requires arguments to have the same dtypes, "
                         r"got (?P<dtypes>[^.]+)\.(?: \(Tip: (?P<tip>[\w.]+) is a similar)?")
# Operations that write their second operand into their first: the update takes the
# dtype of the array it is written into.
_UPDATES = frozenset({"dynamic_update_slice", "dynamic_update_index_in_dim",
                      "dynamic_update_slice_in_dim", "scatter", "scatter_add", "scatter_mul",
                      "scatter_min", "scatter_max", "scatter_apply"})
# Convolutions: their filter (rhs) takes the dtype of the data (lhs) it is applied to
_CONVOLUTIONS = frozenset({"conv_general_dilated", "conv", "conv_with_general_padding",
                           "conv_transpose"})
# The jax.lax operations a user's line calls (``engine.ask``): the same error from a lax
# operation JAX ran inside another function is not the user's to cast.
OPERATIONS = frozenset({"add", "sub", "mul", "div", "rem", "pow", "max", "min", "atan2",
                        "nextafter", "select_n", "select", "clamp", "complex", "eq", "ne",
                        "lt", "le", "gt", "ge", "bitwise_and", "bitwise_or", "bitwise_xor",
                        "and_", "or_", "xor", "dot", "dot_general", "concatenate", "pad",
                        "cond", "while_loop", "scan", "fori_loop", *_UPDATES,
                        *_CONVOLUTIONS})
# The operations whose message names a lax operation the user's line spells otherwise, and
# how many of their first operands the message's dtypes leave out: select_n's check lists
# its cases' dtypes, not the case index's
_SPELLED = {"select": ("select", "select_n")}
_UNCHECKED = {"select": 1, "select_n": 1}

_COUNTS = "counts = jnp.array([1, 3])\nweights = jnp.array([0.5, 0.5])"

EXAMPLES = (
    corrected_cell((LAX_IMPORTS, _COUNTS), "total = lax.add(counts, weights)",
                   "total = jnp.add(counts, weights)", "Use jnp.add",
                   "total.dtype == jnp.float32 and total.tolist() == [1.5, 3.5]"),
    corrected_cell((LAX_IMPORTS, _COUNTS), "total = lax.add(counts, weights)",
                   "total = lax.add(counts.astype(jnp.float32), weights)",
                   "Cast counts to float32",
                   "total.dtype == jnp.float32 and total.tolist() == [1.5, 3.5]"),
    Example(setup=(LAX_IMPORTS, "cache = jnp.zeros(4, jnp.bfloat16)\nstep = jnp.ones(2) * 2"),
            failing="cache = lax.dynamic_update_slice(cache, step, (1,))",
            fix="Cast step to bfloat16",
            check="cache.dtype == jnp.bfloat16 and cache.tolist() == [0, 2, 2, 0]",
            fixed=(LAX_IMPORTS, "cache = jnp.zeros(4, jnp.bfloat16)\nstep = jnp.ones(2) * 2",
                   "cache = lax.dynamic_update_slice(cache, step.astype(cache.dtype), (1,))")),
    # select_n's message lists its cases' dtypes, in order: the one an expression computes
    # is read from it
    corrected_cell((LAX_IMPORTS, "h = jnp.ones(2)\nout = jnp.ones(2, jnp.bfloat16)\n"
                                 "k = jnp.array(1)"),
                   "eps = lax.select_n(k, out, (out + h) / 2)",
                   "eps = lax.select_n(k, out.astype(jnp.float32), (out + h) / 2)",
                   "Cast out to float32",
                   "eps.dtype == jnp.float32 and eps.tolist() == [1.0, 1.0]"),
    # a float32 filter over float16 data: the filter in the data's precision
    corrected_cell((LAX_IMPORTS, "sig = jnp.ones((1, 1, 4), jnp.float16)\n"
                                 "bank = jnp.full((1, 1, 2), 0.5)"),
                   "out = lax.conv_general_dilated(sig, bank, (1,), 'VALID')",
                   "out = lax.conv_general_dilated(sig, bank.astype(sig.dtype), (1,), 'VALID')",
                   "Cast bank to float16",
                   "out.dtype == jnp.float16 and out.tolist() == [[[1.0, 1.0, 1.0]]]"),
)

WHY = _entry.prose("""
jax.lax is the layer under jax.numpy: each lax operation is one XLA operation, and XLA
computes only on operands of one dtype. jax.numpy functions promote their operands first
(int32 and float32 give float32); lax leaves that choice to you, so cast the operand that
differs, or use the jax.numpy function.
""")


def _promoted(dtypes: list[str]) -> str | None:
    """The dtype JAX's promotion gives these dtypes (None when JAX cannot say)."""
    try:
        import jax.numpy as jnp

        result = jnp.dtype(dtypes[0])
        for other in dtypes[1:]:
            result = jnp.promote_types(result, other)
        return str(result)
    except Exception:  # a dtype name this JAX does not know: no cast is offered
        return None


MATCH = Match(MESSAGE, "TypeError", _MESSAGE_RE)


def diagnose(ctx: ErrorContext, link: Link, found: re.Match[str]) -> Diagnosis | None:
    op, tip = found.group("op"), found.group("tip")
    dtypes = [d.strip() for d in found.group("dtypes").split(",")]
    location = ctx.deepest_user_location()
    operations = _operands.operations(ctx, location, _SPELLED.get(op, (op,)))
    operation = _dtypes_read(operations[0], dtypes) if operations else None
    subject = _tracing.quoted_line(location, "Your code")
    if operation is not None and any(o.dtype for o in operation.operands):
        called = operation.spelled.rsplit(".", 1)[-1]
        given = _operands.listed([o for o in _checked(operation)[1] if o.dtype])
        explanation = (f"{subject} calls lax.{called} with operands of different dtypes "
                       f"({given}), and lax.{called} promotes nothing.")
    else:
        explanation = (f"{subject} calls lax.{op} with operands of different dtypes "
                       f"({', '.join(dtypes)}), and lax.{op} promotes nothing.")
    fixes: list[Fix] = []
    if operation is not None and location is not None:
        if op in _UPDATES:
            fixes += _update_fix(ctx, location, operation, op)
        elif op in _CONVOLUTIONS:
            fixes += _filter_fix(ctx, location, operation, op)
        else:
            if tip and operation.spelled.rsplit(".", 1)[-1] == op:
                fixes.append(_jnp_fix(ctx, location, operation, op, tip))
            fixes += _cast_fixes(ctx, location, operation, op, dtypes)
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=fixes,
                            error=link.summary.split(" (Tip:", 1)[0])


def _checked(operation: _operands.Operation) -> tuple[int, tuple[_operands.Operand, ...]]:
    """How many of the operation's first operands JAX's dtype check leaves out, and the
    operands it checks (all of them but select_n's case index)."""
    skipped = _UNCHECKED.get(operation.spelled.rsplit(".", 1)[-1], 0)
    return skipped, operation.operands[skipped:]


def _dtypes_read(operation: _operands.Operation, dtypes: list[str]) -> _operands.Operation:
    """The operation with each operand whose value could not be read (an expression such as
    ``(a + b) / 2``) given the dtype JAX's message lists for it: the message names the
    checked operands' dtypes in their order."""
    skipped, checked = _checked(operation)
    if len(checked) != len(dtypes) or all(o.dtype is not None for o in checked) \
            or any(o.dtype not in (None, d) for o, d in zip(checked, dtypes, strict=True)):
        return operation
    read = tuple(o if o.dtype is not None else replace(o, value=Value(o.text, "other", d, dtype=d))
                 for o, d in zip(checked, dtypes, strict=True))
    return replace(operation, operands=operation.operands[:skipped] + read)


def _jnp_fix(ctx: ErrorContext, location: Location, operation: _operands.Operation, op: str,
             tip: str) -> Fix:
    jnp = ctx.alias("jax.numpy") or "jnp"
    function = f"{jnp}.{tip.split('.', 1)[1]}" if tip.startswith("jnp.") else tip

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.wrap_in_call import replace_callee

        return replace_callee(source, location.lineno, operation.spelled, function)

    return rewrite_fix(
        ctx, location, transform, label=f"Use {function}",
        summary=(f"Call {function} instead of {operation.spelled} on line {location.lineno}: "
                 "it promotes the operands to one dtype first; then re-run."),
        safety=(f"Same values: {function} promotes the operands by JAX's rules and then does "
                f"what lax.{op} does."),
        safe=True)


def _cast_fixes(ctx: ErrorContext, location: Location, operation: _operands.Operation,
                op: str, dtypes: list[str]) -> list[Fix]:
    skipped, checked = _checked(operation)
    known = [o for o in checked if o.dtype is not None]
    target = _promoted([o.dtype for o in known if o.dtype is not None] or dtypes)
    if target is None or len(known) != len(checked):
        return []
    differing = [(skipped + index, o) for index, o in enumerate(checked) if o.dtype != target]
    if len(differing) != 1:
        return []
    index, operand = differing[0]
    jnp = ctx.alias("jax.numpy") or "jnp"
    callee = operation.spelled.rsplit(".", 1)[-1]

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.wrap_in_call import cast_argument

        return cast_argument(source, location.lineno, callee, index, f"{jnp}.{target}")

    return [rewrite_fix(
        ctx, location, transform, label=f"Cast {operand.text} to {target}",
        summary=(f"Cast {operand.text} ({operand.dtype}) to {target} in the lax.{op} call on "
                 f"line {location.lineno}; then re-run."),
        safety=(f"Same values as JAX's promotion: {target} is the dtype jax.numpy would "
                f"convert {operand.text} to before lax.{op}."),
        safe=True)]


def _filter_fix(ctx: ErrorContext, location: Location, operation: _operands.Operation,
                op: str) -> list[Fix]:
    """The filter cast to the dtype of the data it is applied to: a convolution computes in
    the data's precision, and the filter is a parameter of it (a float32 bank over float16
    signals, a float64 one from another library over float32 images)."""
    if len(operation.operands) < 2:
        return []
    data, kernel = operation.operands[0], operation.operands[1]
    if data.dtype is None or kernel.dtype is None or data.dtype == kernel.dtype \
            or "float" not in data.dtype or "float" not in kernel.dtype:
        return []
    return _second_cast(
        ctx, location, operation,
        summary=(f"Cast the filter {kernel.text} ({kernel.dtype}) to the dtype of the data "
                 f"{data.text} ({data.dtype}) in the lax.{op} call on line {location.lineno}; "
                 "then re-run."),
        narrowed=(f"Same values up to {data.dtype} rounding: the filter's {kernel.dtype} "
                  f"values are rounded to {data.dtype}, the precision the data and the result "
                  f"are in; the result is {data.dtype}."),
        rounding=True)


def _update_fix(ctx: ErrorContext, location: Location, operation: _operands.Operation,
                op: str) -> list[Fix]:
    if len(operation.operands) < 2:
        return []
    into, update = operation.operands[0], operation.operands[1]
    if into.dtype is None or update.dtype is None or into.dtype == update.dtype:
        return []
    return _second_cast(
        ctx, location, operation,
        summary=(f"Cast {update.text} ({update.dtype}) to the dtype of {into.text} "
                 f"({into.dtype}) before lax.{op} writes it; then re-run."),
        narrowed=(f"Same values as any write into {into.text} stores: {into.text} holds "
                  f"{into.dtype}, so {update.text} is rounded from {update.dtype} to it (as "
                  f"NumPy's item assignment rounds it; jax.numpy's .at[].set warns that it "
                  f"wants this cast written out). The result keeps {into.text}'s dtype."),
        rounding=False)


def _second_cast(ctx: ErrorContext, location: Location, operation: _operands.Operation, *,
                 summary: str, narrowed: str, rounding: bool) -> list[Fix]:
    """The operation's second operand cast to the first's dtype (both read already): safe,
    and said to keep every value where that dtype is wider; ``narrowed`` says what a
    narrower one rounds, and ``rounding`` marks that fix rounding-tier."""
    first, second = operation.operands[0], operation.operands[1]
    if first.dtype is None or second.dtype is None:
        return []
    callee = operation.spelled.rsplit(".", 1)[-1]
    dtype = f"{first.text}.dtype" if first.text.isidentifier() else \
        f"{ctx.alias('jax.numpy') or 'jnp'}.{first.dtype}"

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.wrap_in_call import cast_argument

        return cast_argument(source, location.lineno, callee, 1, dtype)

    widening = _promoted([second.dtype, first.dtype]) == first.dtype
    fix = rewrite_fix(
        ctx, location, transform, label=f"Cast {second.text} to {first.dtype}",
        summary=summary,
        safety=(f"Same values: every {second.dtype} value is exact in {first.dtype}."
                if widening else narrowed),
        safe=True)
    return [replace(fix, rounding=True) if rounding and not widening else fix]
