"""``jax.vmap``'s ``in_axes`` or ``out_axes`` that do not fit the arguments or the outputs,
or arguments whose mapped axes have different sizes.

``in_axes`` has one entry per positional argument (or one int for all); each entry is a
prefix of that argument's pytree. ``vmap`` checks this before it traces, and its messages
name the counts and sizes but not the user's call: ``vmap in_axes must be an int, None, or
a tuple of entries corresponding to the positional arguments passed to the function, but
got len(in_axes)=3, len(args)=2``, ``... but got {'a': 0}.``, ``vmap got inconsistent sizes
for array axes to be mapped``, ``at vmap out_axes, got axis spec None but output was
batched on axis 0``.

Reports: jax-ml/jax#18548 (a dict ``in_axes`` for a one-argument function; the answer was
``in_axes=({'a': 0},)``), jax-ml/jax#9928 (two entries for three arguments),
jax-ml/jax#24406 and google-research/discs#63 (inconsistent sizes), jax-ml/jax#3613 and
jax-ml/jax#21766 (``out_axes`` that do not fit the outputs).
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH404"
TITLE = "vmap axes that do not fit the arguments"

IN_AXES = "vmap in_axes must be an int, None, or a tuple of entries"
IN_PREFIX = "vmap in_axes specification must be a tree prefix"
SIZES = "vmap got inconsistent sizes for array axes to be mapped"
OUT_NONE = "got axis spec None but output was batched"
OUT_NONE_OLD = "vmap has mapped output but out_axes is None"
OUT_PREFIX = "vmap out_axes specification must be a tree prefix"
RANK = "vmap was requested to map its argument along axis"
TRIGGERS = (IN_AXES, IN_PREFIX, SIZES, OUT_NONE, OUT_NONE_OLD, OUT_PREFIX, RANK)

_COUNTS = re.compile(r"len\(in_axes\)=(?P<axes>\d+), len\(args\)=(?P<args>\d+)")
_SIZE_LINE = re.compile(
    r"axis (?P<axis>\d+) of argument (?P<name>.+?) of type (?P<type>\S+?)[;.]?$")

_ADD = "def add(a, b):\n    return a + b"

_PARAMS = "params = {'w': jnp.arange(3.0), 'b': jnp.ones(3)}"
_SIZES = "xs = jnp.ones(3)\nys = jnp.ones(4)"

EXAMPLES = (
    # jax-ml/jax#18548: the dict is the one argument's spec, so it goes in a 1-tuple.
    corrected_cell(
        (JAX_IMPORTS, _PARAMS),
        "out = jax.vmap(lambda p: p['w'] * p['b'], in_axes={'w': 0, 'b': 0})(params)",
        "out = jax.vmap(lambda p: p['w'] * p['b'], in_axes=({'w': 0, 'b': 0},))(params)",
        "Put in_axes in a tuple", "out.tolist() == [0.0, 1.0, 2.0]"),
    corrected_cell(
        (JAX_IMPORTS, _ADD), "out = jax.vmap(add, in_axes=(0, 0, 0))(jnp.ones(3), jnp.ones(3))",
        "out = jax.vmap(add, in_axes=(0, 0))(jnp.ones(3), jnp.ones(3))",
        NO_FIX, "out.tolist() == [2.0, 2.0, 2.0]"),
    # Every pair of elements was meant: two vmaps, one per argument.
    corrected_cell(
        (JAX_IMPORTS, _ADD, _SIZES), "out = jax.vmap(add)(xs, ys)",
        "out = jax.vmap(jax.vmap(add, in_axes=(None, 0)), in_axes=(0, None))(xs, ys)",
        NO_FIX, "out.shape == (3, 4)"),
    corrected_cell(
        (JAX_IMPORTS,), "out = jax.vmap(lambda x: x * 2, out_axes=None)(jnp.ones(3))",
        "out = jax.vmap(lambda x: x * 2, out_axes=0)(jnp.ones(3))",
        NO_FIX, "out.tolist() == [2.0, 2.0, 2.0]"),
)

WHY = _entry.prose("""
jax.vmap maps a function over one axis of its arguments. in_axes says, for each positional
argument in order, which axis is mapped (None: not mapped), as an int or a pytree shaped
like that argument; out_axes says the same for the outputs. Every mapped axis must have the
same size, the batch size.
""")


def _vmap_call(location: Location | None) -> tuple[ast.Call, ast.Call | None] | None:
    """The vmap(...) call on the user's line, and the call of its result, if on the line."""
    parsed = _tracing.parse(location.source) if location is not None else None
    if location is None or parsed is None:
        return None
    calls = [node for node in ast.walk(parsed[0]) if isinstance(node, ast.Call)
             and node.lineno <= location.lineno <= (node.end_lineno or 0)]
    maps = [node for node in calls if (dotted(node.func) or "").rsplit(".", 1)[-1] == "vmap"]
    if len(maps) != 1:
        return None
    applied = next((node for node in calls if node.func is maps[0]), None)
    return maps[0], applied


def _sizes(message: str) -> list[str]:
    """``a: axis 0 has size 3 (float32[3])`` for each argument JAX lists."""
    found = []
    for line in message.splitlines():
        size = re.search(r"had size (?P<size>\d+)", line)
        where = _SIZE_LINE.search(line.strip())
        if size and where:
            found.append(f"{where['name']} (axis {where['axis']} of {where['type']}) has "
                         f"size {size['size']}")
    return found


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    link = next(filter(None, map(ctx.find, TRIGGERS)), None)
    if link is None or not (link.is_a("ValueError") or link.is_a("TypeError")):
        return None
    message = link.message
    location = ctx.deepest_user_location()
    subject = _tracing.quoted_line(location, "A jax.vmap call")
    found = _vmap_call(location)
    fixes: tuple[Fix, ...] = ()
    notes: list[str] = []
    counts = _COUNTS.search(message)
    if IN_AXES in message and counts:
        explanation = (f"{subject} gives vmap {counts['axes']} in_axes entries for "
                       f"{counts['args']} positional arguments: in_axes needs exactly one "
                       "entry per argument, in order.")
        notes.append("Use None for an argument that is not mapped, for example "
                     "in_axes=(0, None) for a batch and a shared parameter.")
    elif IN_AXES in message or IN_PREFIX in message:
        explanation = (f"{subject} gives vmap an in_axes that is not one entry per "
                       "positional argument: a dict or list is read as the spec of the whole "
                       "argument tuple, not of the one argument it describes.")
        if found is not None and found[1] is not None and len(found[1].args) == 1 \
                and location is not None:
            fixes = (_tuple_fix(ctx, location),)
        else:
            notes.append("Wrap the spec of each argument in a tuple with one entry per "
                         "positional argument: in_axes=({'w': 0, 'b': 0},) for one argument.")
    elif SIZES in message:
        sizes = _sizes(message)
        listed = "; ".join(sizes) if sizes else "their sizes differ"
        explanation = (f"{subject} maps arguments whose mapped axes have different sizes: "
                       f"{listed}. vmap needs one batch size for every mapped axis.")
        notes.append("Map only the batched arguments (in_axes=None for the others), map "
                     "the axis that really is the batch, or, for every pair of elements, nest "
                     "two vmaps: jax.vmap(jax.vmap(f, in_axes=(None, 0)), in_axes=(0, None)).")
    elif OUT_NONE in message or OUT_NONE_OLD in message:
        explanation = (f"{subject} says out_axes=None (the output is the same for every "
                       "element of the batch), but the output depends on the mapped input.")
        notes.append("Use out_axes=0 to stack the per-element outputs, or compute the "
                     "unmapped output outside the vmap.")
    elif OUT_PREFIX in message:
        explanation = (f"{subject} gives out_axes a structure that does not match what the "
                       "function returns: out_axes needs one entry per output (or one int "
                       "for all).")
    else:
        explanation = (f"{subject} maps an argument along an axis it does not have: "
                       f"{message.splitlines()[0]}")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=fixes, notes=notes,
                            error=link.summary.splitlines()[0])


def _tuple_fix(ctx: ErrorContext, location: Location) -> Fix:
    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.in_axes_tuple import in_axes_as_tuple

        return in_axes_as_tuple(source, location.lineno)

    return rewrite_fix(
        ctx, location, transform, label="Put in_axes in a tuple",
        summary="Write in_axes as a one-element tuple holding the argument's spec, then re-run.",
        safety="Same mapping: the spec describes the one argument, as it was meant to.",
        safe=True)
