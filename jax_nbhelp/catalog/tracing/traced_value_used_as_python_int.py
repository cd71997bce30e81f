"""A traced value used where Python needs an int: ``range(n)``, ``items[i]``, ``"ab" * n``
under ``jax.jit`` (``TracerIntegerConversionError``).

When the caller passes a Python int, the parameter is a setting: make it static. When it
passes a global name holding an integer array, the count was a setting kept in an array:
make the parameter static and pass ``int(n)``. When it passes another array, a ``for`` loop
over ``range(n)`` becomes ``lax.fori_loop`` where that is the same loop (``_loops``:
its body assigns names only, and carries what it assigns); a lookup in a
Python list of numbers of one type, or of arrays of one shape and dtype, becomes a lookup
in the array they make (``jnp.asarray(rates)[i]``, ``jnp.stack(layers)[i]``), which holds
the same element at each index in range.
"""

from __future__ import annotations

import ast
import sys

from jax_nbhelp.catalog import _compile_time, _entry, _loops, _static_fix, _tracing
from jax_nbhelp.catalog._example import (
    NO_FIX,
    TRACING_IMPORTS,
    Example,
    made_static,
    static_from_array,
)
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.safe_eval import Evaluator
from jax_nbhelp.fix.fix_builders import rewrite_fix

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

_GROW = '''\
@jax.jit
def grow(x, n):
    seen = []
    for _ in range(n):
        seen.append(x)
    return jnp.stack(seen)'''
_SCHEDULE = "rates = [0.5, 0.25, 0.125]"
_DECAY = '''\
def decay(i, w):
    return w * (1.0 - rates[i])'''
_LAYERS = "layers = [jnp.full(2, 2.0), jnp.full(2, 3.0)]"
_APPLY = '''\
def apply(i, h):
    return h * layers[i]'''

_HEAD = ("@jax.jit\ndef head(x):\n    n = jnp.minimum(x.shape[0], 2)\n    total = 0.0\n"
         "    for i in range(n):\n        total = total + x[i]\n    return total")

EXAMPLES = (
    made_static(_POWER, "out = power(jnp.float32(2.0), 3)", "n", "float(out) == 8.0"),
    # a count JAX computed from the shape: the same operations, run before the trace
    Example(
        setup=(_IMPORTS, _HEAD), failing="t = head(jnp.arange(4.0))",
        fix="Compute n before the trace", check="float(t) == 1.0",
        fixed=(_IMPORTS, _HEAD.replace(
            "    n = jnp.minimum(x.shape[0], 2)\n    total = 0.0\n"
            "    for i in range(n):\n        total = total + x[i]",
            "    with jax.ensure_compile_time_eval():\n        n = jnp.minimum(x.shape[0], 2)\n"
            "        total = 0.0\n        for i in range(n):\n            total = total + x[i]"),
            "t = head(jnp.arange(4.0))")),
    # a count passed as an array: the loop becomes the loop JAX compiles, whose bounds may
    # be traced, carrying what the body assigns
    Example(
        setup=(_IMPORTS, _POWER),
        failing="out = power(jnp.float32(2.0), jnp.int32(3))",
        fix="Write the loop as fori_loop",
        check="float(out) == 8.0",
        fixed=(_IMPORTS, "@jax.jit\ndef power(x, n):\n    out = x\n"
                         "    def loop_body(_, out):\n        out = out * x\n        return out\n"
                         "    out = jax.lax.fori_loop(0, n - 1, loop_body, out)\n    return out",
               "out = power(jnp.float32(2.0), jnp.int32(3))"),
    ),
    # A Python list looked up by a loop's traced index: the array it makes holds the same
    # element at each index.
    Example(
        setup=(_IMPORTS, _SCHEDULE, _DECAY),
        failing="w = jax.lax.fori_loop(0, 3, decay, 1.0)",
        fix="Look up in jnp.asarray(rates)",
        check="float(w) == 0.5 * 0.75 * 0.875",
        fixed=(_IMPORTS, _SCHEDULE, _DECAY.replace("rates[i]", "jnp.asarray(rates)[i]"),
               "w = jax.lax.fori_loop(0, 3, decay, 1.0)"),
    ),
    Example(
        setup=(_IMPORTS, _LAYERS, _APPLY),
        failing="h = jax.lax.fori_loop(0, 2, apply, jnp.ones(2))",
        fix="Look up in jnp.stack(layers)",
        check="h.tolist() == [6.0, 6.0]",
        fixed=(_IMPORTS, _LAYERS, _APPLY.replace("layers[i]", "jnp.stack(layers)[i]"),
               "h = jax.lax.fori_loop(0, 2, apply, jnp.ones(2))"),
    ),
    # A count kept in an array: static, and passed as the Python int it holds.
    static_from_array(_POWER, "count = jnp.int32(3)", "out = power(jnp.float32(2.0), count)",
                      "n", "int(count)", "out = power(jnp.float32(2.0), int(count))",
                      "float(out) == 8.0"),
    # a loop that appends to a Python list: the append would run once, while JAX traces a
    # fori_loop's body, not once per step
    Example(
        setup=(_IMPORTS, _GROW),
        failing="out = grow(jnp.ones(2), jnp.int32(2))",
        fix=NO_FIX,
        check="out.shape == (2, 2)",
        fixed=(_IMPORTS, _GROW.replace("@jax.jit\n", ""), "out = grow(jnp.ones(2), 2)"),
    ),
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
        lookup = _sequence_lookup_fix(ctx, location)
        fixes = (lookup,) if lookup is not None else ()
    else:
        said, fixes = _static_fix.inside(ctx, origin, call, floats=True)
        explanation += said
        if not fixes:
            if call.any_array:
                explanation += _static_fix.unhashable_sentence(call)
            notes.append(advice(ctx, location))
            held, fixes = _static_fix.held_in_array(ctx, call)
            explanation += held
            lookup = _sequence_lookup_fix(ctx, location) if not fixes else None
            fixes = (lookup,) if lookup is not None else fixes
            if not fixes and call.any_array and origin.for_jit:
                notes.append("If the count is really a setting, pass a Python int at the call "
                             "(int(n) outside jit, or the literal) and mark the parameter "
                             "static with static_argnames.")
    ahead = _compile_time.explained(
        ctx, location, subject, origin.function if origin is not None else "the function",
        "a Python int") if not fixes else None
    if ahead is not None:
        explanation, fixes = ahead[0], (ahead[1],)
    if not fixes and location is not None:
        loop = _loops.fori_fix(ctx, location)
        fixes = (loop,) if loop is not None else ()
    explanation += _tracing.batch_sentence(ctx, found)
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=found.caller or ctx.failing_cell(), fixes=fixes,
                            notes=notes,
                            why=_tracing.transform_why(_tracing.transform_of(ctx, found), WHY))


def _sequence_lookup_fix(ctx: ErrorContext, location: Location | None) -> Fix | None:
    """``rates[i]`` with ``i`` traced and ``rates`` a Python list (or tuple) of numbers of
    one type, or of JAX arrays of one shape and dtype: looked up in the array they make.
    Read from the live frame of the line (the list's items are plain values, never user
    objects asked anything)."""
    call = ctx.user_call
    jnp = ctx.alias("jax.numpy")
    if call is None or location is None or call.location != location or jnp is None \
            or not isinstance(call.node, ast.Subscript) \
            or not isinstance(call.node.value, ast.Name | ast.Attribute):
        return None
    held = Evaluator(call.frame)(call.node.value)
    if type(held) not in (list, tuple) or not held:
        return None
    items: list[object] = list(held)  # type: ignore[call-overload]
    kinds = {type(item) for item in items}
    array = getattr(sys.modules.get("jax"), "Array", None)
    if kinds in ({int}, {float}):
        make, what = "asarray", (f"the {'int32' if kinds == {int} else 'float32'} JAX makes of "
                                 f"the list's Python {'int' if kinds == {int} else 'float'}")
    elif array is not None and all(isinstance(item, array) for item in items) \
            and len({(item.shape, str(item.dtype)) for item in items}) == 1:  # type: ignore[attr-defined]
        make, what = "stack", "the list's array"
    else:
        return None
    before = ast.unparse(call.node.value)
    after = f"{jnp}.{make}({before})"
    index = ast.unparse(call.node.slice)
    parsed = _tracing.parse(location.source)
    tree = parsed[0] if parsed is not None else ast.Module(body=[], type_ignores=[])
    written = [node.value for node in ast.walk(tree)
               if isinstance(node, ast.Subscript) and node.lineno == location.lineno
               and node.value.end_lineno == location.lineno
               and ast.unparse(node.value) == before and ast.unparse(node.slice) == index]
    if len(written) != 1:
        return None
    return rewrite_fix(
        ctx, location, _tracing.replacing(written[0], before, after),
        label=f"Look up in {jnp}.{make}({before})" if len(before) <= 16
        else "Look up in an array",
        summary=(f"Write `{after}[{index}]` for `{before}[{index}]` on line {location.lineno}: "
                 "an array can be indexed by a traced value, a Python "
                 f"{type(items).__name__} cannot; then re-run."),
        safety=(f"Same values for each index in range: element {index} is {what} at "
                f"{index}. An index past the end is clamped by JAX, where Python would raise."),
        safe=True)
