"""Typed PRNG keys (``jax.random.key``) and raw ``uint32[2]`` keys (``jax.random.PRNGKey``)
mixed up.

JAX has two spellings of a key. ``jax.random.key(0)`` is a typed key: a scalar whose dtype is
``key<fry>``, not a number. ``jax.random.PRNGKey(0)`` is the older raw key: an array of two
``uint32`` words. Every ``jax.random`` function takes either, but code written for one breaks
on the other: a typed key in arithmetic, ``jnp.stack`` or a ``cond`` next to a raw one
(``dtype=key<fry> is not a valid dtype for JAX type promotion``, ``add does not accept dtypes
key<fry>, int32``; before 0.10 ``jnp.stack`` says ``All input arrays must have the same
shape``); a typed key indexed like the raw pair (``Too many indices: array is
0-dimensional``); a key passed where a seed goes (``key accepts a scalar seed, but was given
a PRNG key``); a typed key wrapped again (``JAX encountered invalid PRNG key data: expected
key_data.ndim >= 1; got ndim=0``). ``jax.random.key_data(key)`` gives a typed key's raw words,
``jax.random.wrap_key_data(raw)`` the typed key of raw words.

Code written for raw keys that indexes a typed key's words (``int(rng[1])``) or converts it to
NumPy (``np.array(rng)``, whose message names ``key_data``) reads them through
``jax.random.key_data``: the words are those ``jax.random.PRNGKey`` makes for the same seed,
the values that code was written to read.

Reports: mlcommons/algorithmic-efficiency#815 (``Too many indices`` while moving from
``PRNGKey`` to ``key``), jax-ml/jax#16028 (``PRNGKey(key)`` failed with "Cannot interpret
'key<fry>' as a data type"; JAX then named the mistake), genjax-community/genjax#1398 and
jax-ml/jax#17225 (libraries that expect raw keys, given typed ones), scverse/pertpy#689 (a
typed key converted with ``np.array`` to be saved).
"""

from __future__ import annotations

import ast
import re
import sys

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, Example
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.diagnosis.safe_eval import Evaluator
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH406"
TITLE = "Typed and raw PRNG keys mixed up"

PROMOTION = "is not a valid dtype for JAX type promotion"
NO_DTYPES = "does not accept dtypes key<"
SEED = "accepts a scalar seed, but was given"
INVALID = "JAX encountered invalid PRNG key data"
INDICES = "Too many indices"
BRANCHES = "has type key<"
SHAPES = "All input arrays must have the same shape"  # jnp.stack of both kinds before 0.10
TO_NUMPY = "with PRNGKey dtype cannot be converted to a NumPy array"
TRIGGERS = (PROMOTION, NO_DTYPES, SEED, INVALID, INDICES, BRANCHES, SHAPES, TO_NUMPY)

_KEY_TYPE = re.compile(r"\.PRNGKeyArray$")
_KEY_DTYPE = re.compile(r"key<\w+>")

_TYPED = "key = jax.random.key(0)"
_RAW = "raw = jax.random.PRNGKey(1)"

EXAMPLES = (
    # wrap_key_data on what is already a typed key: the key itself is meant.
    Example(
        setup=(JAX_IMPORTS, _TYPED),
        failing="noise = jax.random.normal(jax.random.wrap_key_data(key), (3,))",
        fix="Use key itself",
        check="bool((noise == jax.random.normal(jax.random.key(0), (3,))).all())",
        fixed=(JAX_IMPORTS, _TYPED, "noise = jax.random.normal(key, (3,))"),
    ),
    # A typed key stacked with a raw one: one kind of key for both.
    Example(
        setup=(JAX_IMPORTS, _TYPED, _RAW),
        failing="both = jnp.stack([key, raw])",
        fix=NO_FIX,
        check="both.shape == (2,)",
        fixed=(JAX_IMPORTS, _TYPED, _RAW, "both = jnp.stack([key, jax.random.wrap_key_data(raw)])"),
    ),
    # Code written for raw keys indexes the two words of a typed key: its key_data's words
    Example(
        setup=(JAX_IMPORTS, _TYPED),
        failing="word = key[0]",
        fix="Use jax.random.key_data(key)",
        check="int(word) == 0",
        fixed=(JAX_IMPORTS, _TYPED, "word = jax.random.key_data(key)[0]"),
    ),
    # ... or converts it to NumPy, as JAX's message says: key_data
    Example(
        setup=(JAX_IMPORTS, "import numpy as np", "key = jax.random.key(7)"),
        failing="words = np.asarray(key)",
        fix="Use jax.random.key_data(key)",
        check="words.tolist() == [0, 7]",
        fixed=(JAX_IMPORTS, "import numpy as np", "key = jax.random.key(7)",
               "words = np.asarray(jax.random.key_data(key))"),
    ),
)

WHY = _entry.prose("""
JAX has two kinds of PRNG key. jax.random.key(seed) makes a typed key: one scalar of dtype
key<fry>, which only jax.random functions read. jax.random.PRNGKey(seed) makes the older raw
key: two uint32 words, an ordinary array. jax.random functions take either, but anything
else sees the difference: a typed key is not a number, has no words to index, and does not
stack, compare or branch together with raw keys. jax.random.key_data(key) gives a typed
key's words; jax.random.wrap_key_data(words) gives the typed key of raw words.
""")


def _line_names(location: Location | None) -> set[str]:
    parsed = _tracing.parse(location.line.strip()) if location is not None else None
    if parsed is None:
        return set()
    return {node.id for node in ast.walk(parsed[0]) if isinstance(node, ast.Name)}


def _typed_names(ctx: ErrorContext, location: Location | None) -> list[str]:
    """The names on the user's line whose values are typed keys."""
    return sorted(name for name in _line_names(location)
                  if _KEY_TYPE.search(ctx.type_of(name) or ""))


def _has_other_arrays(ctx: ErrorContext, location: Location | None) -> bool:
    """Whether the line also names a JAX array that is not a typed key (a raw key, say)."""
    return any((ctx.type_of(name) or "").endswith("ArrayImpl") for name in _line_names(location))


def _calls(location: Location, function: str) -> list[ast.Call]:
    parsed = _tracing.parse(location.line.strip())
    if parsed is None:
        return []
    return [node for node in ast.walk(parsed[0]) if isinstance(node, ast.Call)
            and (dotted(node.func) or "").rsplit(".", 1)[-1] == function
            and len(node.args) == 1 and not node.keywords]


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    link = next(filter(None, map(ctx.find, TRIGGERS)), None)
    if link is None:
        return None
    message = link.message
    location = ctx.deepest_user_location()
    typed = _typed_names(ctx, location)
    subject = _tracing.quoted_line(location, "A line")
    names = _tracing.quoted(typed) if typed else "a typed key"
    fixes: tuple[Fix, ...] = ()
    notes: list[str] = []
    if INVALID in message and location is not None and "ndim=0" in message:
        wrapped = [call.args[0].id for call in _calls(location, "wrap_key_data")
                   if isinstance(call.args[0], ast.Name) and call.args[0].id in typed]
        if wrapped:
            inner = wrapped[0]
            explanation = (f"{subject} passes {inner}, already a typed key, to "
                           "jax.random.wrap_key_data, which makes a typed key from raw "
                           "uint32 words.")
            fixes = (_unwrap_fix(ctx, location, inner),)
        else:  # the line does not show the call (code run by exec, a library's own line)
            explanation = (f"{subject} gives JAX a scalar where raw key words go (uint32, "
                           "with a last axis of 2): a typed key from jax.random.key is such "
                           "a scalar, and wrapping it again fails.")
            notes.append("Pass the typed key itself where jax.random.wrap_key_data(key) "
                         "is; wrap_key_data is for raw words, as PRNGKey returns.")
    elif SEED in message:
        given_key = "given a PRNG key" in message
        function = re.search(r"(\w+) accepts a scalar seed", message)
        called = function.group(1) if function else "key"
        if given_key:
            explanation = (f"{subject} passes {names} to jax.random.{called}, which makes a "
                           "key from an integer seed; what it was given is a key already.")
            notes.append("Use the key as it is; for its raw uint32 words (what PRNGKey "
                         "returns), jax.random.key_data(key).")
        elif re.search(r"shape \(2,\)", message):
            explanation = (f"{subject} passes jax.random.{called} an array of shape (2,) "
                           "where it takes one integer seed: a raw key from "
                           "jax.random.PRNGKey looks like that.")
            notes.append("For a raw key, jax.random.wrap_key_data(raw) is its typed key (the "
                         "same draws); for two seeds, jax.vmap(jax.random.key)(seeds).")
        else:
            return None
    elif INDICES in message:
        words = _words_fix(ctx, location) if location is not None else None
        if not typed and words is None:
            return None  # an ordinary 0-d array: not about keys
        explanation = (f"{subject} indexes {f'{names}, a typed key' if typed else names}: a "
                       "scalar, with no words to index (code written for raw PRNGKey keys "
                       "reads key[0], key[1]).")
        if words is not None:
            fixes = (words,)
        else:
            notes.append(f"Index its raw words instead: jax.random.key_data({typed[0]})[0]; "
                         "or, to split it, jax.random.split.")
    elif TO_NUMPY in message:
        explanation = (f"{subject} converts {f'{names}, a typed key,' if typed else names} "
                       "to a NumPy array: a typed key is not a number; JAX's message names "
                       "jax.random.key_data, its uint32 words.")
        words = _words_fix(ctx, location) if location is not None else None
        fixes = (words,) if words is not None else ()
    elif SHAPES in message and not (typed and _has_other_arrays(ctx, location)):
        return None  # arrays of different shapes, no typed key among them
    elif _KEY_DTYPE.search(message) or SHAPES in message:
        mixed = any(word in message for word in ("uint32", "differ", PROMOTION, SHAPES))
        explanation = (f"{subject} uses {names} as if it were a number" +
                       (" or puts it next to a raw uint32 key" if mixed else "") +
                       ": a typed key's dtype is key<fry>, which no arithmetic, comparison "
                       "or promotion accepts.")
        notes.append("Use one kind of key throughout: jax.random.wrap_key_data(raw) for a "
                     "typed key of a raw one, or jax.random.key_data(key) for a typed key's "
                     "raw words (to compare keys, compare their key_data).")
    else:
        return None
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=fixes, notes=notes,
                            error=link.summary.splitlines()[0])


def _unwrap_fix(ctx: ErrorContext, location: Location, name: str) -> Fix:
    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.unwrap_call import unwrap_call

        return unwrap_call(source, location.lineno, "wrap_key_data", name)

    return rewrite_fix(
        ctx, location, transform, label=f"Use {name} itself",
        summary=f"Pass {name} where jax.random.wrap_key_data({name}) was, then re-run.",
        safety=(f"{name} is a typed key already: it is the key the wrapping was meant to "
                "make, so the draws are the same."),
        safe=True)


def _typed_key(value: object) -> bool:
    """Whether ``value`` is an array of JAX's typed PRNG keys (``key<fry>[]``), read from
    JAX's own class and dtype without running any other code."""
    return type(value).__module__.startswith("jax") \
        and str(getattr(value, "dtype", "")).startswith("key<")


def _words_fix(ctx: ErrorContext, location: Location) -> Fix | None:
    """``int(rng[1])``, ``np.array(rng)`` where ``rng = jax.random.key(0)`` (code written
    when a key was a ``uint32[2]`` array):
    a typed key has no words to index or convert. ``jax.random.key_data(rng)`` is those words,
    the array ``jax.random.PRNGKey`` makes for the same seed, and is what JAX's message
    prescribes for the conversion; each typed key the line indexes or converts is read
    through it."""
    parsed = _tracing.parse(location.source)
    frame = ctx.live_frame(location)
    random = ctx.alias("jax.random") or (f"{ctx.alias('jax')}.random" if ctx.alias("jax")
                                         else None)
    if parsed is None or frame is None or random is None:
        return None
    tree, code = parsed
    evaluate = Evaluator(frame)
    numpy = sys.modules.get("numpy")
    conversions = {id(f) for f in (getattr(numpy, "array", None), getattr(numpy, "asarray",
                                                                         None)) if f}
    used: list[ast.expr] = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) != location.lineno:
            continue
        if isinstance(node, ast.Subscript) and ctx.top.is_a("IndexError"):
            target = node.value
        elif isinstance(node, ast.Call) and len(node.args) >= 1 \
                and id(evaluate(node.func)) in conversions:
            target = node.args[0]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "astype":
            target = node.func.value
        else:
            continue
        if isinstance(target, ast.Name | ast.Attribute | ast.Subscript) \
                and target.lineno == target.end_lineno and _typed_key(evaluate(target)):
            used.append(target)
    if not used or len({ast.unparse(n) for n in used}) != 1:
        return None
    edits = [(n, _tracing.segment(code, n), f"{random}.key_data({_tracing.segment(code, n)})")
             for n in used]
    name, after = edits[0][1], edits[0][2]
    return rewrite_fix(
        ctx, location, _tracing.replacing_each(edits), label=f"Use {after}",
        summary=(f"Read `{name}` through `{after}` on line {location.lineno}: `{name}` is a "
                 "typed key, and key_data is its uint32 words; then re-run."),
        safety=("Same values: key_data gives the key's uint32 words, the array "
                "jax.random.PRNGKey makes for the same seed, which this line was written "
                "to read."),
        safe=True)
