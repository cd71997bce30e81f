"""A traced value where JAX or Python needs a concrete one: a size (``jnp.arange(n)``,
``jnp.zeros(n)``), a conversion (``float(x)``, ``x.item()``) or a data-dependent output
length (``jnp.nonzero(x)``) under ``jax.jit``.

``ConcretizationTypeError`` (other than its subclass ``TracerBoolConversionError``, JNH301),
and the ``TypeError`` "Shapes must be 1D sequences of concrete values" that JAX raises for a
traced size given as a shape. A Python int from the caller is a setting: make it static;
so is a shape the caller spells as a tuple of ints (``(2, 3)``) or reads off an array
(``x.shape``). An array from the caller cannot be static ("Non-hashable static
arguments"): where it is a global name holding integers, the fix also passes its Python
value (``int(n)``); otherwise that case is explained only.
"""

from __future__ import annotations

import re

from jax_nbhelp.catalog import (
    _compile_time,
    _conversion,
    _data_size,
    _entry,
    _jit_split,
    _math_twins,
    _shifted_range,
    _static_fix,
    _static_made_traced,
    _tracing,
    _vmap_constant,
)
from jax_nbhelp.catalog._example import (
    JAX_IMPORTS,
    TRACING_IMPORTS,
    Example,
    corrected,
    corrected_cell,
    made_static,
    static_from_array,
)
from jax_nbhelp.core.model import Diagnosis, Fix
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH303"
TITLE = "Traced value where a concrete value is needed"
ERROR = "ConcretizationTypeError"
SHAPES = "Shapes must be 1D sequences of concrete values of integer type"
UNHASHABLE = "As of JAX v0.7, parameters to jaxpr equations must have __hash__"

_IMPORTS = TRACING_IMPORTS
_RAMP = '''\
@jax.jit
def ramp(x, n):
    return x + jnp.arange(n)'''
_GROW = '''\
@jax.jit
def grow(x):
    count = jnp.add(x.size, 1)
    return jnp.zeros((count,))'''
_GRID = '''\
@jax.jit
def filled(shape, value):
    return jnp.full(shape, value)'''
_PAD = '''\
@jax.jit
def padded(x, width):
    return jnp.concatenate([x, jnp.zeros(width)])'''

_STEPS = '''\
@jax.jit
def steps(x, dt):
    for _ in range(int(1 / dt)):
        x = x + dt
    return x'''
_TILE = '''\
@jax.jit
def tile(v, rows, cols):
    return v.reshape(rows, cols)'''

_KEYS = '''\
@jax.jit
def keys_for(key, count):
    return jax.random.split(key, count)'''
_SAMPLER = '''\
class Sampler:
    def __init__(self, scale):
        self.scale = scale

    @partial(jax.jit, static_argnums=(0,))
    def draw(self, key, n):
        return self.scale * jax.random.normal(key, (n,))

    def __hash__(self):
        return id(self)'''
_NORMALIZE = '''\
@jax.jit
def normalized(x):
    total = float(x.sum())
    return x / total'''
_DOUBLE_PEAK = '''\
@jax.jit
def double_peak(x):
    return x.max().item() * 2'''
_DAMPED = '''\
@jax.jit
def damped(x):
    total = float(x.sum())
    return x * (total * 0.1)'''

_LOGGED = ("@jax.jit\ndef step(x):\n    loss = jnp.sum(x ** 2)\n"
           "    print('loss', float(loss))\n    return loss")

_TIMES = ("@jax.jit\ndef grid(scale):\n    lo, hi, step = 0.0, 1.0, 0.25\n"
         "    n = jnp.ceil((hi - lo) / step).astype(int)\n"
         "    return scale * jnp.linspace(lo, hi, n + 1)")
_AROUND = ("@jax.jit\ndef around(x):\n    top = jnp.argmax(x)\n"
           "    return x[jnp.arange(top - 1, top + 2)]")
_TABLE = ("from functools import partial\n\n@partial(jax.jit, static_argnums=1)\n"
          "def widened(x, extra):\n    widths = jnp.zeros((x.ndim, 2), int)\n"
          "    widths = widths.at[-1, 1].set(extra)\n    return jnp.pad(x, widths)")


def _ahead(code: str, first: str, last: str) -> str:
    """``code`` with its lines from ``first`` to ``last`` in one ``ensure_compile_time_eval``
    block (what the fix writes)."""
    lines = code.split("\n")
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(first))
    end = next(i for i, line in enumerate(lines) if line.strip().startswith(last))
    return "\n".join([*lines[:start], "    with jax.ensure_compile_time_eval():",
                      *["    " + line for line in lines[start:end + 1]], *lines[end + 1:]])


_FLOORED = ("def at_least(x, steps, size):\n    return jnp.maximum(x, steps * size)\n\n"
            "@jax.jit\ndef floored(x, s):\n    return at_least(x, 4.0, float(s))")

_UNIQUE = ("codes = jnp.array([9, 2, 5, 2, 9])\n@jax.jit\ndef first_of_each(c):\n"
           "    return jnp.unique(c)")

_TRIMMED = ("@jax.jit\ndef level(padded):\n    kept = jnp.trim_zeros(padded)\n"
            "    return kept.mean()")
_TRIMMED_SPLIT = ("@jax.jit\ndef _level_compiled(kept):\n    return kept.mean()\n\n\n"
                  "def level(padded):\n    kept = jnp.trim_zeros(padded)\n"
                  "    return _level_compiled(kept)")
_COUNTS = ("@jax.jit\ndef counts(x):\n    n = int(x.max())\n"
           "    return jnp.zeros(n + 1).at[x].add(1.0)")
_COUNTS_SPLIT = ("def _counts_compiled(x, n):\n    return jnp.zeros(n + 1).at[x].add(1.0)\n"
                 "_counts_compiled = jax.jit(_counts_compiled, static_argnames=(\"n\",))\n\n\n"
                 "def counts(x):\n    n = int(x.max())\n    return _counts_compiled(x, n)")

EXAMPLES = (
    # a conversion only to print the value: jax.debug.print prints it at each call
    corrected(JAX_IMPORTS, _LOGGED, _LOGGED.replace(
        "print('loss', float(loss))", "jax.debug.print('loss {}', loss)"),
        "y = step(jnp.ones(2))", "Print with jax.debug.print", "float(y) == 2.0"),
    # an f-string's format spec on the traced value itself: the same, with the spec kept
    corrected(JAX_IMPORTS, "@jax.jit\ndef total(x):\n    s = jnp.sum(x)\n"
                           "    print(f'total {s:.2f}')\n    return s",
              "@jax.jit\ndef total(x):\n    s = jnp.sum(x)\n"
              "    jax.debug.print('total {:.2f}', s)\n    return s",
              "y = total(jnp.ones(2))", "Print with jax.debug.print", "float(y) == 2.0"),
    made_static(_RAMP, "out = ramp(jnp.ones(4), 4)", "n", "out.tolist() == [1.0, 2.0, 3.0, 4.0]"),
    # a jitted method whose self is static already: the setting joins static_argnums
    corrected(_IMPORTS, _SAMPLER, _SAMPLER.replace("static_argnums=(0,)",
                                                   "static_argnums=(0, 2)"),
              "s = Sampler(2.0).draw(jax.random.key(0), 3)", "Make n static", "s.shape == (3,)"),
    # an int() made only to index an array: the traced index, truncated as int() does
    corrected(JAX_IMPORTS, "@jax.jit\ndef pick(x, i):\n    return x[int(i)]",
              "@jax.jit\ndef pick(x, i):\n    return x[i.astype(int)]",
              "p = pick(jnp.arange(3.0), jnp.float32(1.7))", "Index with i.astype(int)",
              "float(p) == 1.0"),
    # Python's math needs a float: jax.numpy's twin takes the traced value
    corrected(JAX_IMPORTS, "import math\n\ndef nll(p):\n    return -math.log(p)",
              "import math\n\ndef nll(p):\n    return -jnp.log(p)",
              "g = jax.grad(nll)(0.5)", "Use jnp.log", "abs(float(g) + 2.0) < 1e-6"),
    # A lambda jitted where it is written: static_argnames on that jax.jit call.
    Example(
        setup=(_IMPORTS, "ramp = jax.jit(lambda x, n: x + jnp.arange(n))"),
        failing="out = ramp(1.0, 3)",
        fix="Make n static",
        check="out.tolist() == [1.0, 2.0, 3.0]",
        fixed=(_IMPORTS, "ramp = jax.jit(lambda x, n: x + jnp.arange(n), static_argnames='n')",
               "out = ramp(1.0, 3)"),
    ),
    # The size arrives as an array: static, and passed as the Python int it holds.
    static_from_array(_RAMP, "n = jnp.int32(4)", "out = ramp(jnp.ones(4), n)", "n", "int(n)",
                      "out = ramp(jnp.ones(4), int(n))", "out.tolist() == [1.0, 2.0, 3.0, 4.0]"),
    # A size given as a shape raises a TypeError, not a ConcretizationTypeError.
    made_static(_PAD, "out = padded(jnp.ones(2), width=3)", "width",
                "out.tolist() == [1.0, 1.0, 0.0, 0.0, 0.0]"),
    # A Python float the line needs as a value (a count computed from it): it hashes, so it
    # can be static like an int.
    made_static(_STEPS, "out = steps(0.0, 0.25)", "dt", "float(out) == 1.0"),
    # Two settings make one shape: JAX names each in a note of its own, and both are made
    # static at once.
    Example(
        setup=(_IMPORTS, _TILE),
        failing="out = tile(jnp.arange(6.0), 2, 3)",
        fix="Make rows and cols static",
        check="out.shape == (2, 3) and float(out[1, 2]) == 5.0",
        fixed=(_IMPORTS, _TILE.replace("@jax.jit", '@partial(jax.jit, static_argnames=("rows", '
                                       '"cols"))'), "out = tile(jnp.arange(6.0), 2, 3)"),
    ),
    # A whole shape passed as a tuple of ints: a tuple hashes, so it can be static.
    made_static(_GRID, "out = filled((2, 3), 0.5)", "shape",
                "out.shape == (2, 3) and float(out.sum()) == 3.0"),
    # A count a primitive keeps as a setting: JAX says only that the traced value it got
    # does not hash, and names no traced function; the frames do.
    made_static(_KEYS, "keys = keys_for(jax.random.PRNGKey(0), 3)", "count",
                "keys.shape[0] == 3"),
    # A number taken out of an array only to meet arrays of its dtype: kept an array.
    Example(
        setup=(_IMPORTS, _NORMALIZE),
        failing="out = normalized(jnp.arange(1.0, 5.0))",
        fix="Keep x.sum() an array",
        check="bool(jnp.all(out == jnp.arange(1.0, 5.0) / 10.0))",
        fixed=(_IMPORTS, _NORMALIZE.replace("float(x.sum())", "x.sum()"),
               "out = normalized(jnp.arange(1.0, 5.0))"),
    ),
    Example(
        setup=(_IMPORTS, _DOUBLE_PEAK),
        failing="out = double_peak(jnp.array([1.5, 3.25]))",
        fix="Keep x.max() an array",
        check="float(out) == 6.5",
        fixed=(_IMPORTS, _DOUBLE_PEAK.replace(".item()", ""),
               "out = double_peak(jnp.array([1.5, 3.25]))"),
    ),
    # Python arithmetic with another Python float first (float64 there, float32 as an
    # array): the same arithmetic, the same values up to float rounding.
    Example(
        setup=(_IMPORTS, _DAMPED),
        failing="out = damped(jnp.ones(2))",
        fix="Keep x.sum() an array",
        check="out.shape == (2,)",
        fixed=(_IMPORTS, _DAMPED.replace("float(x.sum())", "x.sum()"),
               "out = damped(jnp.ones(2))"),
    ),
    # A size made traced by a jnp operation on static values (jax-ml/jax#4449).
    Example(
        setup=(_IMPORTS, _GROW),
        failing="out = grow(jnp.ones(3))",
        fix="Compute count with NumPy",
        check="out.shape == (4,)",
        fixed=(_IMPORTS + "\nimport numpy as np", _GROW.replace("jnp.add", "np.add"),
               "out = grow(jnp.ones(3))"),
    ),
    # a count JAX computed from constants: the same operations, run before the trace
    # (jax-ml/jax#5208)
    corrected(JAX_IMPORTS, _TIMES, _ahead(_TIMES, "lo, hi", "return"),
              "g = grid(2.0)", "Compute n before the trace", "g.tolist() == [0, 0.5, 1, 1.5, 2]"),
    # a pad table built with jnp from a static argument and x's rank; x on the line is data
    # (jax-ml/jax#3620)
    corrected(JAX_IMPORTS, _TABLE, _ahead(_TABLE, "widths = jnp", "return"),
              "w = widened(jnp.ones((2, 2)), 1)", "Compute widths before the trace",
              "w.shape == (2, 3) and float(w.sum()) == 4.0"),
    # a range whose bounds are one traced value shifted by known numbers: the same range of
    # known length, shifted (jax-ml/jax#19433)
    corrected(JAX_IMPORTS, _AROUND, _AROUND.replace("jnp.arange(top - 1, top + 2)",
                                                     "top + jnp.arange(-1, 2)"),
              "w = around(jnp.array([0.0, 5.0, 1.0, 2.0]))", "Use top + jnp.arange(-1, 2)",
              "w.tolist() == [0.0, 5.0, 1.0]"),
    # under jax.grad alone, float() of the value is refused but a Python if may compare it
    # (jax-ml/jax#2783): the conversion is dropped, the branch is the same
    corrected(JAX_IMPORTS, "def ramp(x):\n    if float(x) > 0:\n        return x * x\n"
                           "    return -x",
              "def ramp(x):\n    if x > 0:\n        return x * x\n    return -x",
              "g = jax.grad(ramp)(3.0)", "Test x itself", "float(g) == 6.0"),
    # .item() of an array of one element, used only with arrays: kept as that element
    corrected(JAX_IMPORTS, "@jax.jit\ndef scaled(v):\n    c = v[:1].item()\n    return c * v",
              "@jax.jit\ndef scaled(v):\n    c = v[:1].reshape(())\n    return c * v",
              "w = scaled(jnp.array([2.0, 3.0]))", "Keep v[:1] an array",
              "w.tolist() == [4.0, 6.0]"),
    # float() of a traced number passed to a helper that only does arithmetic with it on
    # its way into JAX's functions: kept an array (blackjax-devs/blackjax#1029)
    corrected(JAX_IMPORTS, _FLOORED, _FLOORED.replace("float(s)", "s"),
              "w = floored(jnp.array([0.1, 3.0]), jnp.float32(0.5))", "Keep s an array",
              "w.tolist() == [2.0, 3.0]"),
    # a length that depends on the data: the one this call's values give, computed by
    # jnp.unique itself on them (jax-ml/jax#10231)
    corrected(JAX_IMPORTS, _UNIQUE, _UNIQUE.replace("jnp.unique(c)", "jnp.unique(c, size=3)"),
              "out = first_of_each(codes)", "Pass size=3", "out.tolist() == [2, 5, 9]"),
    # a length no keyword fixes (jnp.trim_zeros): the statements up to it run before jit,
    # the rest is compiled (jax-ml/jax#38601)
    corrected(JAX_IMPORTS, _TRIMMED, _TRIMMED_SPLIT, "m = level(jnp.array([0.0, 2.0, 4.0, 0.0]))",
              "Compute kept before jit", "float(m) == 3.0"),
    # a Python number taken from the data to size an array: static for the compiled rest
    corrected(JAX_IMPORTS, _COUNTS, _COUNTS_SPLIT, "c = counts(jnp.array([0, 2, 2]))",
              "Compute n before jit", "c.tolist() == [1.0, 0.0, 2.0]"),
    # a count vmap maps although every element of the batch gets the same one
    # (jax-ml/jax#3696)
    corrected_cell((JAX_IMPORTS, "labels = jnp.array([2, 0, 1])\nsizes = jnp.full(3, 3)"),
                   "h = jax.vmap(jax.nn.one_hot)(labels, sizes)",
                   "h = jax.vmap(jax.nn.one_hot, in_axes=(0, None))(labels, 3)",
                   "Pass sizes unmapped", "h.tolist() == [[0, 0, 1], [1, 0, 0], [0, 1, 0]]"),
)

WHY = _entry.prose("""
jax.jit compiles your function for the shapes and dtypes of its arguments, running it once
with tracers that stand for any value of those shapes. Array sizes, Python numbers
(float(x), x.item()) and output lengths that depend on the data must be known right then,
but a tracer has no value until the compiled program runs.
""")

_SIZE_HINTS = ("jnp.arange", "jnp.linspace", SHAPES)
_DATA_SIZE_HINTS = ("size argument", "jnp.unique()")
_CONVERSION_HINTS = ("`float` function", "`int` function", "`complex` function", "item()",
                     "tolist()")


def _matches(ctx: ErrorContext) -> Link | None:
    for link in ctx.chain:
        if link.is_a("TracerBoolConversionError"):
            return None  # JNH301's
        if link.is_a(ERROR):
            return link
        if link.is_a("TypeError") and link.message.startswith(SHAPES):
            # the same words for a float or a string in a shape: a tracer only where the
            # value JAX shows is one (older releases: Traced<...>, newer: JitTracer(...))
            shown = link.message.split(" got ", 1)[-1].split("\n", 1)[0]
            return link if "Trace" in shown else None
        if link.is_a("TypeError") and link.message.startswith(UNHASHABLE):
            # a tracer where a primitive needs a setting (jax.random.split(key, n), n traced)
            shown = link.message.split(" was not hashable: ", 1)[-1].split("\n", 1)[0]
            return link if "Tracer(" in shown or "Traced<" in shown else None
    return None


def advice(ctx: ErrorContext, message: str, function: str) -> str:
    jnp, _ = _tracing.spellings(ctx)
    if any(hint in message for hint in _SIZE_HINTS):
        return (f"An array's size must be known when jit compiles {function}. Pass the size "
                "as a Python int and mark that parameter static, or allocate the largest "
                f"size you need and mask the rest: `{jnp}.arange(max_n) < n`.")
    if any(hint in message for hint in _DATA_SIZE_HINTS):
        return ("The result's length depends on the data, which jit cannot compile. Give it "
                f"a fixed length: `{jnp}.nonzero(mask, size=k, fill_value=0)`, "
                f"`{jnp}.unique(x, size=k, fill_value=0)`.")
    if any(hint in message for hint in _CONVERSION_HINTS):
        return ("float(x), int(x), x.item() and x.tolist() turn a traced array into Python "
                f"numbers, which needs its value. Keep it an array (`x.astype({jnp}.float32)`"
                "), and to look at values while debugging use "
                "`jax.debug.print(\"{}\", x)`.")
    return ("Keep the value traced (use jnp functions that take arrays), or pass a Python "
            "value and mark the parameter static.")


FORMAT = re.compile(r"^unsupported format string passed to \w*Tracer\.__format__$")
TRIGGERS = (ERROR, SHAPES, UNHASHABLE, "unsupported format string passed to")


def _formatted(ctx: ErrorContext) -> Diagnosis | None:
    """``print(f"{loss:.3f}")`` under jit: an f-string's format spec asks the traced value
    for its number, which it does not have while JAX traces. Python raises it in the
    user's own line, with JAX's tracer named in the message."""
    top = ctx.top
    if not top.is_a("TypeError") or not FORMAT.match(top.message):
        return None
    location = ctx.deepest_user_location()
    subject = _tracing.quoted_line(location, "A line")
    fix = _conversion.debug_print_fix(ctx, location, top.message, formatted=True)
    notes = [] if fix is not None else [
        "Print traced values with jax.debug.print(\"{x:.3f}\", x=x): it formats them each "
        "time the compiled function runs."]
    return _entry.diagnosis(
        ctx, __name__, f"{subject} formats a traced value with a format spec (as in "
        "`{x:.3f}`): a tracer has no number to format while JAX traces the function.",
        location=location, call_site=ctx.failing_cell(),
        fixes=(fix,) if fix is not None else (), notes=notes)


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    formatted = _formatted(ctx)
    if formatted is not None:
        return formatted
    found = _tracing.traced(ctx, _matches(ctx), frames=True)
    if found is None:
        return None
    link, location, origin, call = found.link, found.location, found.origin, found.call
    subject = found.subject("A line")
    function = origin.function if origin is not None else "the function"
    fixes: tuple[Fix, ...] = ()
    notes: list[str] = []
    explanation = f"{subject} needs a concrete value"
    made = _static_made_traced.find(ctx, location)
    math = (_math_twins.math_fix(ctx, location)
            if made is None and "`float` function" in link.message else None)
    if math is not None:
        module = ctx.alias("math")
        called = list(dict.fromkeys(f"`{module}.{c.name}`"
                                    for c in _math_twins.calls(ctx, location)))
        converts = ("converts its argument" if len(called) == 1
                    else "convert their arguments")
        explanation += (f", but {_tracing.quoted(called)} of Python's math {converts} to a "
                        "Python float, which a traced value cannot give.")
        fixes = (math,)
    elif made is not None:
        explanation += (f", but {made.name} became a tracer at {made.location.label}: "
                        f"`{made.call}` is a JAX operation, and under jit every JAX "
                        "operation returns a tracer, even when all its inputs are known "
                        "Python numbers.")
        notes.append(f"Plain Python or NumPy keeps such a value static: "
                     f"np.{made.function}(...) or the Python operator.")
        fixes = (_numpy_fix(ctx, made),)
    elif origin is None or call is None:
        tested = _conversion.condition_fix(ctx, location, link.message)
        if tested is not None:
            explanation += (": Python's float() of a value jax.grad traces, which would drop "
                            "its derivative. The value is only compared in a Python if, "
                            "which jax.grad alone allows.")
            fixes = (tested,)
        else:
            explanation += ", but gets a traced one, which has no value while JAX traces."
            notes.append(advice(ctx, link.message, function))
    else:
        said, fixes = _static_fix.inside(ctx, origin, call, floats=True)
        explanation += said
        if not fixes:
            size = any(hint in link.message for hint in _SIZE_HINTS)
            if call.any_array:
                explanation += (_static_fix.unhashable_sentence(call) if size
                                else _tracing.data_sentence(call))
            held, fixes = _static_fix.held_in_array(ctx, call) if size else ("", ())
            sized = _data_size.explain(ctx, found) if not fixes and origin.for_jit else None
            if sized is not None:  # the fix says the length: no advice on size= needed
                explanation, fixes = explanation + sized[0], (sized[1],)
            else:
                notes.append(advice(ctx, link.message, function))
            kept = ((_conversion.keep_array_fix(ctx, location, link.message)
                     or _conversion.debug_print_fix(ctx, location, link.message)
                     or _conversion.index_fix(ctx, location, link.message))
                    if not fixes and origin.for_jit else None)
            fixes = (kept,) if kept is not None else fixes
            explanation += held
            if not fixes and call.any_array and origin.for_jit and size:
                names = _tracing.quoted([a.parameter for a in call.arguments
                                         if a.kind == "array"])
                notes.append(f"If {names} is a size you know before the call, pass it as a "
                             "Python int (the literal, or int(n) outside jit) and mark it "
                             "static with static_argnames.")
    shifted = _shifted_range.fix(ctx, location) if not fixes else None
    if shifted is not None:
        fixes = (shifted,)
    ahead = _compile_time.explained(ctx, location, subject, function, "a concrete value") \
        if not fixes else None
    if ahead is not None:
        explanation, fixes = ahead[0], (ahead[1],)
    unmapped = _vmap_constant.fix(ctx, location) if not fixes else None
    if unmapped is not None:
        fixes = (unmapped,)
        explanation += (" jax.vmap maps every argument over the batch unless in_axes says "
                        "otherwise, and one of them holds the same number for every element.")
    split = _jit_split.fix(ctx, found) if not fixes else None
    if split is not None:
        fixes = (split,)
        at = f" ({found.caller.label})" if found.caller is not None else ""
        explanation += (f" Outside jit those values are concrete: the statements of {function} "
                        f"up to this one can run as plain Python at the call{at}.")
    explanation += _tracing.batch_sentence(ctx, found)
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=found.caller or ctx.failing_cell(), fixes=fixes,
                            notes=notes,
                            why=_tracing.transform_why(_tracing.transform_of(ctx, found), WHY))


def _numpy_fix(ctx: ErrorContext, made: _static_made_traced.MadeTraced) -> Fix:
    jnp = ctx.alias("jax.numpy") or "jnp"
    numpy = ctx.alias("numpy")

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.jnp_call_to_numpy import jnp_call_to_numpy

        return jnp_call_to_numpy(source, made.location.lineno, jnp, made.function, numpy)

    return rewrite_fix(
        ctx, made.location, transform,
        label=f"Compute {made.name} with NumPy",
        summary=(f"Call {numpy or 'np'}.{made.function} instead of {jnp}.{made.function} "
                 f"where {made.name} is computed, so it stays a Python number while jit "
                 "traces; then re-run."),
        safety=(f"Same value: {made.name} is computed from numbers known before the trace, "
                "and NumPy gives the same number without making it a tracer."),
        safe=True,
    )
