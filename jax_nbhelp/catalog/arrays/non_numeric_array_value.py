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

import re

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, corrected, corrected_cell
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext, Link

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
