"""A dict whose keys cannot be sorted, in a pytree: ``{1: 7, "y": 42}`` mixes ints and
strings (``ValueError: Comparator raised exception while sorting pytree dictionary
keys.``).

JAX flattens a dict in the order of its sorted keys, so that two dicts with the same keys
flatten alike whatever order they were built in; ints and strings do not compare in
Python 3. The explanation names the dict and its keys' types as read from the line. No fix:
which keys to rename is the user's choice.

Reports: jax-ml/jax#15358 (``tree_map`` over ``{1: 7, "y": 42}``), genjax-community/genjax#414
(addresses mixing tuples and strings), jax-ml/jax#11871 (a proposal to sort such keys
anyway). JAX's docs teach it in the pytrees tutorials.
"""

from __future__ import annotations

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match

CODE = "JNH543"
TITLE = "A pytree dict whose keys cannot be sorted"
MESSAGE = "Comparator raised exception while sorting pytree dictionary keys"

EXAMPLES = (
    corrected_cell(("import jax, jax.numpy as jnp",),
                   "doubled = jax.tree.map(lambda v: v * 2, {0: 1.0, 'scale': 2.0})",
                   "doubled = jax.tree.map(lambda v: v * 2, {'0': 1.0, 'scale': 2.0})",
                   NO_FIX, "doubled == {'0': 2.0, 'scale': 4.0}"),
)

WHY = _entry.prose("""
JAX flattens a dict in the order of its sorted keys, so that two dicts with the same keys
flatten the same way whatever order they were built in. Python cannot sort keys of different
types (1 and 'y'), so such a dict cannot be a pytree node: use keys of one type (all
strings, say).
""")


MATCH = Match(MESSAGE)


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    location = ctx.deepest_user_location()
    subject = _tracing.quoted_line(location, "Your code")
    dicts = [v for v in ctx.values_at(location) if v.kind == "dict"]
    named = f" ({dicts[0].text} is a {dicts[0].summary})" if dicts else ""
    explanation = (f"{subject} hands JAX a dict whose keys are of different types{named}, "
                   "and JAX sorts a dict's keys to flatten it.")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(),
                            notes=["Use keys of one type: all strings (`str(key)`), or all "
                                   "ints."],
                            error=link.summary.splitlines()[0])
