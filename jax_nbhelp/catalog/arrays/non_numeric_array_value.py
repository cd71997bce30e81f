"""A value that is not a number where JAX makes an array: strings, ``None`` or Python objects
in ``jnp.array`` (``TypeError: Value 'cat' with dtype <U3 is not a valid JAX array type.
Only arrays of numeric types are supported by JAX.``, ``ValueError: None is not a valid value
for jnp.array``).

A JAX array holds numbers (and booleans) only. Labels are encoded as integers first; ``None``
and objects have no array form. One case is JAX's own doing: when a transformation rebuilds a
user's pytree class (``tree_unflatten``), it passes placeholder leaves (``None``,
``object()``) to the class's unflatten function, and an ``__init__`` that converts its
arguments with ``jnp.asarray`` fails there. The explanation names that contract.

No fix: what a string or ``None`` should be as a number is the user's choice.

Reports: jax-ml/jax#14506 (``jnp.array('ciao')``; ``None`` was deprecated after it),
jax-ml/jax#5228 (``jit`` called with a NumPy array of strings), jax-ml/jax#856 (an object
array from a list of tuples of arrays), ashawkey/dreamfields-torch#5 (a device buffer object
inside an array). JAX's docs teach the pytree case in "Custom pytrees".
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import (
    JAX_IMPORTS,
    NO_FIX,
    NUMPY_IMPORTS,
    corrected,
    corrected_cell,
)
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.diagnosis.safe_eval import Evaluator
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH503"
TITLE = "A value that is not a number where JAX makes an array"
NOT_NUMERIC = "is not a valid JAX array type"
NONE_VALUE = "is not a valid value for jnp.array"

_VALUE_RE = re.compile(r"Value (?P<value>.+?) with dtype (?P<dtype>\S+) is not a valid JAX "
                       r"array type")

_TREE = ("class Box:\n    def __init__(self, value):\n        self.value = jnp.asarray(value)\n\n"
         "jax.tree_util.register_pytree_node(\n    Box, lambda box: ((box.value,), None),\n"
         "    lambda _, leaves: Box(*leaves))")
_TREE_FIXED = ("class Box:\n    def __init__(self, value):\n"
               "        self.value = jnp.asarray(value)\n\ndef _rebuild(_, leaves):\n"
               "    box = object.__new__(Box)\n"
               "    box.value, = leaves\n    return box\n\n"
               "jax.tree_util.register_pytree_node(\n    Box, lambda box: ((box.value,), None), "
               "_rebuild)")

EXAMPLES = (
    # strings read from a file that are the text of numbers (jax-ml/jax#1883)
    corrected_cell((NUMPY_IMPORTS, "rows = [['1.5', '2'], ['3', '4.25']]"), "a = jnp.array(rows)",
                   "a = jnp.array(np.asarray(rows, dtype=float))", "Read the strings as floats",
                   "a.tolist() == [[1.5, 2.0], [3.0, 4.25]]"),
    corrected_cell((JAX_IMPORTS,), "labels = jnp.array(['cat', 'dog', 'cat'])",
                   "codes = {'cat': 0, 'dog': 1}\n"
                   "labels = jnp.array([codes[n] for n in ['cat', 'dog', 'cat']])",
                   NO_FIX, "labels.tolist() == [0, 1, 0]"),
    # jax.jacobian rebuilds the user's pytree with None leaves: __init__ must not convert.
    corrected(JAX_IMPORTS, _TREE, _TREE_FIXED,
              "box = Box(jnp.arange(3.0))\nslopes = jax.jacobian(lambda b: b)(box)", NO_FIX,
              "slopes.value.value.shape == (3, 3)"),
)

WHY = _entry.prose("""
A JAX array holds numbers (or booleans) of one dtype, so that XLA can compute with it on any
device. Strings, None and Python objects have no such form: encode labels as integers first
(a dict from label to index), and keep other Python objects outside the arrays (in a
pytree's static part, or in plain Python).
""")

TRIGGERS = (NOT_NUMERIC, NONE_VALUE)


def _rebuilt_by_jax(link: Link) -> tuple[str, str] | None:
    """Where JAX's tree_util called a user function (the unflatten), that line and the
    user line the error came from: JAX was rebuilding a pytree of the user's class."""
    frames = link.frames
    for index, frame in enumerate(frames[:-1]):
        after = frames[index + 1]
        if (not frame.is_user and frame.filename.replace("\\", "/").endswith("tree_util.py")
                and after.is_user and after.location is not None):
            return after.location.label, after.line
    return None


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    link = ctx.find(NOT_NUMERIC) or ctx.find(NONE_VALUE)
    if link is None or (not link.is_a("TypeError") and not link.is_a("ValueError")):
        return None
    location = ctx.deepest_user_location()
    found = _VALUE_RE.search(link.message)
    if found is not None:
        dtype = found.group("dtype")
        what = ("a string" if dtype.startswith(("<U", "|S", "<S")) else
                f"an object ({found.group('value')[:60]})")
    else:
        what = "None"
    subject = _tracing.quoted_line(location, "Your code")
    notes: list[str] = []
    rebuilt = _rebuilt_by_jax(link)
    if rebuilt is not None and what == "None":
        where, line = rebuilt
        explanation = (f"{subject} turns None into an array while JAX rebuilds your pytree: "
                       f"the unflatten function ({where}, `{line.strip()}`) calls your class, "
                       "and its __init__ converts what it gets with jnp.asarray.")
        notes.append("JAX's transformations call a pytree's unflatten function with "
                     "placeholder leaves (None, object(), tracers), not only with arrays. "
                     "Let unflatten build the object without __init__'s conversion "
                     "(`obj = object.__new__(cls)`, then set its fields), or make __init__ "
                     "keep values it cannot convert as they are.")
    else:
        explanation = (f"{subject} gives JAX {what} to make an array of, and JAX arrays hold "
                       "numbers only.")
        numbers = _number_strings_fix(ctx, location) if what == "a string" else None
        if numbers is not None:
            explanation = (f"{subject} gives JAX strings to make an array of; they are the "
                           "text of numbers, and JAX arrays hold the numbers themselves.")
            return _entry.diagnosis(ctx, __name__, explanation, location=location,
                                    call_site=ctx.failing_cell(), fixes=(numbers,),
                                    error=link.summary.splitlines()[0])
        if what == "a string":
            notes.append("Encode the labels as integers first: `codes = {label: i for i, "
                         "label in enumerate(sorted(set(labels)))}`, then an array of "
                         "`codes[label]`; keep the strings in Python to decode results.")
        elif what == "None":
            notes.append("Pass a number (jnp.nan for a missing value), or leave the None out "
                         "of the array.")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), notes=notes,
                            error=link.summary.splitlines()[0])


_MAKERS = ("array", "asarray")
_MAX_STRINGS = 1 << 16


def _strings(value: object, found: list[str]) -> bool:
    """Whether ``value`` is a list or tuple (nested) of strings only; collects them."""
    if type(value) is str:
        found.append(value)
        return len(found) <= _MAX_STRINGS
    return type(value) in (list, tuple) and bool(value) and all(
        _strings(item, found) for item in value)  # type: ignore[attr-defined]


def _parses(text: str, kind: type) -> bool:
    try:
        kind(text.strip())
    except ValueError:
        return False
    return True


def _number_strings_fix(ctx: ErrorContext, location: Location | None) -> Fix | None:
    """``jnp.array(fields)`` of the strings ``[['12.5', '3.0'], ...]`` read from a file
    (jax-ml/jax#1883): every string is the text of a number, so NumPy reads them as those
    numbers first (integers where every one is an integer)."""
    parsed = _tracing.parse(location.source) if location is not None else None
    frame = ctx.live_frame(location) if location is not None else None
    jnp, numpy = ctx.alias("jax.numpy"), ctx.alias("numpy")
    if location is None or parsed is None or frame is None or jnp is None or numpy is None:
        return None
    calls = [node for node in ast.walk(parsed[0]) if isinstance(node, ast.Call)
             and (dotted(node.func) or "") in (f"{jnp}.{m}" for m in _MAKERS)
             and node.lineno == location.lineno == node.end_lineno
             and len(node.args) == 1 and not node.keywords]
    if len(calls) != 1:
        return None
    argument = calls[0].args[0]
    texts: list[str] = []
    if not _strings(Evaluator(frame)(argument), texts) \
            or not all(_parses(t, float) for t in texts):
        return None
    kind = "int" if all(_parses(t, int) for t in texts) else "float"
    code = location.source or ""
    before = _tracing.segment(code, argument, strip=False)
    after = f"{numpy}.asarray({before}, dtype={kind})"
    return rewrite_fix(
        ctx, location, _tracing.replacing(argument, before, after),
        label=f"Read the strings as {kind}s",
        summary=(f"Pass `{after}` on line {location.lineno}: NumPy reads each string as the "
                 f"number it writes, and {jnp} makes its array of those numbers; then re-run."),
        safety=(f"Same values: every string is the text of a{'n' if kind == 'int' else ''} "
                f"{kind} ('{texts[0].strip()}'), and the array holds those numbers in JAX's "
                "default precision."),
        safe=True)
