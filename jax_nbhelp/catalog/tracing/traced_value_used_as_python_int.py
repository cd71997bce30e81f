"""A traced value used where Python needs an int: ``range(n)``, ``items[i]``, ``"ab" * n``
under ``jax.jit`` (``TracerIntegerConversionError``).

When the caller passes a Python int, the parameter is a setting: make it static. When it
passes a global name holding an integer array, the count was a setting kept in an array:
make the parameter static and pass ``int(n)``. When it passes another array, the loop or the
lookup has to become a JAX operation (``lax.fori_loop``, indexing an array), which is
explained, not done.
"""

from __future__ import annotations

import ast

from jax_nbhelp.catalog import _entry, _static_fix, _tracing
from jax_nbhelp.catalog._example import (
    NO_FIX,
    TRACING_IMPORTS,
    Example,
    made_static,
    static_from_array,
)
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext

CODE = "JNH302"
TITLE = "Traced value used as a Python int"
ERROR = "TracerIntegerConversionError"
TRIGGERS = (ERROR,)

_IMPORTS = TRACING_IMPORTS
_POWER = '''\
@jax.jit
def power(x, n):
    out = x
    for _ in range(n - 1):
        out = out * x
    return out'''

EXAMPLES = (
    made_static(_POWER, "out = power(jnp.float32(2.0), 3)", "n", "float(out) == 8.0"),
    Example(
        setup=(_IMPORTS, _POWER),
        failing="out = power(jnp.float32(2.0), jnp.int32(3))",
        fix=NO_FIX,
        check="float(out) == 8.0",
        fixed=(_IMPORTS, "@jax.jit\ndef power(x, n):\n"
                         "    return jax.lax.fori_loop(0, n - 1, lambda i, out: out * x, x)",
               "out = power(jnp.float32(2.0), jnp.int32(3))"),
    ),
    # A count kept in an array: static, and passed as the Python int it holds.
    static_from_array(_POWER, "count = jnp.int32(3)", "out = power(jnp.float32(2.0), count)",
                      "n", "int(count)", "out = power(jnp.float32(2.0), int(count))",
                      "float(out) == 8.0"),
)

WHY = _entry.prose("""
jax.jit runs your function once with tracers in place of its arguments. range(), list
indexing and sequence repetition need a real Python int right then, but a tracer only has a
type (an int32 scalar); its value exists when the compiled program runs.
""")


def advice(ctx: ErrorContext, location: Location | None) -> str:
    """How to keep the value traced, phrased for what the user's line does."""
    jnp, lax = _tracing.spellings(ctx)
    parsed = _tracing.parse(location.source) if location is not None else None
    if parsed is not None and location is not None:
        tree, code = parsed
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "range" and node.lineno == location.lineno):
                continue
            bounds = ", ".join(_tracing.segment(code, a) for a in node.args)
            start, stop = ("0", bounds) if len(node.args) == 1 else (
                _tracing.segment(code, node.args[0]), _tracing.segment(code, node.args[1]))
            if len(node.args) <= 2:
                return (f"A loop over range({bounds}) with a traced bound is "
                        f"`{lax}.fori_loop({start}, {stop}, body, init)`: body(i, carry) "
                        "returns the next carry, and the bounds may be traced.")
        if any(isinstance(node, ast.Subscript) and node.lineno == location.lineno
               for node in ast.walk(tree)):
            return (f"To pick from a Python list or tuple by a traced index, make it an array "
                    f"first: `{jnp}.stack(items)[i]` (or `{jnp}.asarray(items)[i]`).")
    return (f"Keep the value as an array and use JAX operations on it ({lax}.fori_loop for "
            f"loops, indexing an array with {jnp}.stack(...)[i]), or pass a Python int and "
            "mark the parameter static.")



def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    found = _tracing.traced(ctx, _tracing.error_link(ctx, ERROR))
    if found is None:
        return None
    location, origin, call = found.location, found.origin, found.call
    subject = found.subject("A line")
    fixes: tuple[Fix, ...] = ()
    notes: list[str] = []
    explanation = f"{subject} needs a Python int"
    if origin is None or call is None:
        explanation += ", but gets a traced value, which has no value while JAX traces."
        notes.append(advice(ctx, location))
    else:
        said, fixes = _static_fix.inside(ctx, origin, call, floats=True)
        explanation += said
        if not fixes:
            if call.any_array:
                explanation += _static_fix.unhashable_sentence(call)
            notes.append(advice(ctx, location))
            held, fixes = _static_fix.held_in_array(ctx, call)
            explanation += held
            if not fixes and call.any_array and origin.for_jit:
                notes.append("If the count is really a setting, pass a Python int at the call "
                             "(int(n) outside jit, or the literal) and mark the parameter "
                             "static with static_argnames.")
    explanation += _tracing.batch_sentence(ctx, found)
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=found.caller or ctx.failing_cell(), fixes=fixes,
                            notes=notes,
                            why=_tracing.transform_why(_tracing.transform_of(ctx, found), WHY))
