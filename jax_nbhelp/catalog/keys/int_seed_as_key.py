"""An integer seed passed where a ``jax.random`` function takes a key:
``jax.random.normal(0, (3,))`` (``TypeError: JAX encountered invalid PRNG key data: expected
key_data to have ndim, shape, and dtype attributes. Got 0``).

A key is made from a seed once, with ``jax.random.key(seed)``; every sampler then takes the
key. The fix makes the key where the seed is passed (``jax.random.normal(jax.random.key(0),
(3,))``), which is what passing the seed asked for; the note says how to split it for the
next draw, since reusing one key gives the same numbers. Where the call passes a key too, at
the parameter the integer belongs to (``jax.random.split(3, key)``), the two trade places
instead.

Reports: keras-team/keras-core#651 (an int seed handed to JAX's random functions).
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from jax_nbhelp.catalog import _contract, _entry, _tracing
from jax_nbhelp.catalog._example import corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH571"
TITLE = "An integer seed where a PRNG key is expected"
MESSAGE = "JAX encountered invalid PRNG key data"

_GOT_RE = re.compile(r"Got (?P<got>-?\d+)\s*$")

EXAMPLES = (
    corrected_cell(("import jax, jax.numpy as jnp",), "noise = jax.random.normal(0, (3,))",
                   "noise = jax.random.normal(jax.random.key(0), (3,))",
                   "Make a key from the seed 0",
                   "bool((noise == jax.random.normal(jax.random.key(0), (3,))).all())"),
    # the key is passed too, where the count goes: the two trade places
    corrected_cell(("import jax, jax.numpy as jnp", "key = jax.random.key(1)"),
                   "keys = jax.random.split(3, key)", "keys = jax.random.split(key, 3)",
                   "Swap 3 and key", "keys.shape == (3,)"),
)

WHY = _entry.prose("""
jax.random functions take a key, not a seed: a key is the complete state of the random
number generator, made from a seed once with jax.random.key(seed). Passing keys explicitly
is what makes JAX's randomness reproducible under jit and vmap. Each key should be used for
one draw: split it (jax.random.split) for the next.
""")


def _sampler(location: Location, got: str) -> tuple[str, str] | None:
    """The random function on the line given the seed first, and how the seed is written."""
    parsed = _tracing.parse(location.source)
    if parsed is None:
        return None
    for node in ast.walk(parsed[0]):
        if (isinstance(node, ast.Call) and node.lineno <= location.lineno
                <= (node.end_lineno or 0) and node.args
                and "random" in (dotted(node.func) or "")):
            first = node.args[0]
            if (isinstance(first, ast.Constant) and str(first.value) == got) or isinstance(
                    first, ast.Name):
                return (dotted(node.func) or "").rsplit(".", 1)[-1], ast.unparse(first)
    return None


MATCH = Match(MESSAGE, "TypeError", _GOT_RE)


def diagnose(ctx: ErrorContext, link: Link, found: re.Match[str]) -> Diagnosis | None:
    location = ctx.deepest_user_location()
    sampler = _sampler(location, found["got"]) if location is not None else None
    jax = ctx.alias("jax") or "jax"
    subject = _tracing.quoted_line(location, "Your code")
    seed = sampler[1] if sampler is not None else found["got"]
    explanation = (f"{subject} passes the integer {seed} where a jax.random function takes a "
                   "key.")
    fixes: list[Fix] = []
    if sampler is not None and location is not None:
        fixes.append(_fix(ctx, location, sampler[0], seed, jax))
    notes = [f"Make the key once (`key = {jax}.random.key({seed})`) and split it for each "
             f"draw (`key, sub = {jax}.random.split(key)`): the same key always gives the "
             "same numbers."]
    diagnosis = _entry.diagnosis(ctx, __name__, explanation, location=location,
                                 call_site=ctx.failing_cell(), fixes=fixes, notes=notes,
                                 error=link.summary.splitlines()[0])
    swap = _contract.swapped_arguments(ctx, diagnosis)
    if swap is None:
        return diagnosis
    # the call passes a key too, where the integer belongs (`split(3, key)`): swapped
    return replace(diagnosis, explanation=explanation[:-1] + ", and a key where the integer "
                   "belongs: the two arguments are in each other's place.", fixes=(swap,),
                   notes=())


def _fix(ctx: ErrorContext, location: Location, sampler: str, seed: str, jax: str) -> Fix:
    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.wrap_in_call import wrap_argument

        return wrap_argument(source, location.lineno, sampler, 0, f"{jax}.random.key")

    return rewrite_fix(
        ctx, location, transform, label=f"Make a key from the seed {seed}",
        summary=(f"Pass {jax}.random.key({seed}) to {sampler} on line {location.lineno}; then "
                 "re-run."),
        safety=f"The draw the seed {seed} stands for: {jax}.random.key({seed}) is its key.",
        safe=True)
