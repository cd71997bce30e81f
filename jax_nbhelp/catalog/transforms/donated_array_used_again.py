"""An array used after a jitted call donated its buffer (``donate_argnums`` /
``donate_argnames``).

Donating an argument lets XLA reuse its memory for the result, so after the call the array
is deleted: reading it raises ``RuntimeError: Array has been deleted with shape=float32[3].``,
and passing it to a compiled call again raises ``INVALID_ARGUMENT: ... Buffer has been deleted
or donated.`` The usual intent is to keep working with the result, under the same name.

Reports: jax-ml/jax#16906 (``jit(fn, donate_argnums=1)``, then printing the donated array:
"Array has been deleted"), jax-ml/jax#9675 (reusing a donated buffer: "buffer has been
deleted or donated"), talmolab/track-mjx#192 ("Array has been deleted" during training
set-up), jax-ml/jax#12514 (a donated call re-run by ``jax_debug_nans``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import NO_FIX, Example
from jax_nbhelp.core.model import Diagnosis, Location
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match
from jax_nbhelp.diagnosis.names import dotted

CODE = "JNH403"
TITLE = "Array used after a jitted call donated it"
DELETED = "Array has been deleted"
DONATED = "Buffer has been deleted or donated"
DONATED_OLD = "buffer has been deleted or donated"  # jax 0.8: "Invalid buffer passed: ..."

_STEP = '''\
import jax, jax.numpy as jnp
from functools import partial

@partial(jax.jit, donate_argnums=0)
def step(params, grads):
    return params - 0.1 * grads'''
_STATE = "params = jnp.ones(3)\ngrads = jnp.ones(3)"



def _after_donating(failing: str, check: str, fixed: str) -> Example:
    """``params`` donated to ``step`` under another name, then ``failing`` reads it; fixed,
    the result keeps the donated name and ``fixed`` runs instead."""
    return Example(setup=(_STEP, _STATE, "new_params = step(params, grads)"), failing=failing,
                   fix=NO_FIX, check=check,
                   fixed=(_STEP, _STATE, "params = step(params, grads)", fixed))


EXAMPLES = (
    _after_donating("total = params.sum()", "abs(float(total) - 2.7) < 1e-5",
                    "total = params.sum()"),
    # Passing the donated array to a compiled call again.
    _after_donating("again = step(params, grads)", "bool(jnp.allclose(params, 0.8))",
                    "params = step(params, grads)"),
)

WHY = _entry.prose("""
donate_argnums (or donate_argnames) tells jax.jit that the caller is done with those
arguments, so XLA may write the result into their memory instead of allocating more. After
the call the donated arrays are deleted; any later use, even printing them, fails. Donation
is for values you replace with the result, as in params = step(params).
""")


@dataclass(frozen=True)
class Donation:
    """A call of a donating jitted function, and the names it donated."""

    function: str
    spec: str  # "donate_argnums=0", as written
    call: Location
    names: tuple[str, ...]


def _donating(tree: ast.Module) -> dict[str, tuple[str, set[int], set[str]]]:
    """Functions jitted with donation in a cell: name -> (spec, positions, keywords)."""
    found: dict[str, tuple[str, set[int], set[str]]] = {}

    def read(call: ast.Call) -> tuple[str, set[int], set[str]] | None:
        for keyword in call.keywords:
            if keyword.arg in {"donate_argnums", "donate_argnames"}:
                try:
                    value = ast.literal_eval(keyword.value)
                except ValueError:
                    return None
                values = value if isinstance(value, tuple | list) else (value,)
                spec = f"{keyword.arg}={ast.unparse(keyword.value)}"
                return (spec, {v for v in values if isinstance(v, int)},
                        {v for v in values if isinstance(v, str)})
        return None

    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                if isinstance(decorator, ast.Call) and (got := read(decorator)):
                    found[node.name] = got
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1
              and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call)
              and (got := read(node.value))):
            found[node.targets[0].id] = got
    return found


def donations(ctx: ErrorContext) -> list[Donation]:
    """The calls in this session's cells that donated a named array, newest first."""
    trees = {n: parsed[0] for n, source in ctx.cell_sources.items()
             if (parsed := _tracing.parse(source)) is not None}
    donors: dict[str, tuple[str, set[int], set[str]]] = {}
    for number in sorted(trees):
        donors.update(_donating(trees[number]))
    found: list[Donation] = []
    for number in sorted(trees, reverse=True):
        for node in ast.walk(trees[number]):
            if not isinstance(node, ast.Call) or (dotted(node.func) or "") not in donors:
                continue
            spec, positions, keywords = donors[dotted(node.func) or ""]
            names = [dotted(arg) for i, arg in enumerate(node.args) if i in positions]
            names += [dotted(k.value) for k in node.keywords if k.arg in keywords]
            named = tuple(name for name in names if name)
            call = ctx.cell(number, node.lineno)
            if named and call is not None:
                found.append(Donation(dotted(node.func) or "", spec, call, named))
    return found


def _used(location: Location | None, names: tuple[str, ...]) -> list[str]:
    parsed = _tracing.parse(location.line.strip()) if location is not None else None
    if parsed is None:
        return []
    read = {dotted(node) for node in ast.walk(parsed[0])
            if isinstance(node, ast.Name | ast.Attribute)}
    return [name for name in names if name in read]




MATCH = Match(DELETED, also=(DONATED, DONATED_OLD))


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    location = ctx.deepest_user_location()
    subject = _tracing.quoted_line(location, "A line")
    donation = None
    used: list[str] = []
    for candidate in donations(ctx):
        if candidate.call != location:
            used = _used(location, candidate.names)
            if used:
                donation = candidate
                break
    notes = [
        "Keep the result under the donated name (params = step(params, grads)), so the "
        "deleted array is never reached again; or drop donate_argnums where you still need "
        "the input; or donate a copy (step(jnp.copy(params), grads))."
    ]
    if donation is None:
        explanation = (f"{subject} uses an array whose buffer was deleted: a jitted call "
                       "with donate_argnums (or donate_argnames) donated it earlier, or it "
                       "was deleted with .delete().")
    else:
        names = _tracing.quoted(used)
        explanation = (f"{subject} uses {names}, which the call {donation.function}(...) at "
                       f"{donation.call.label} donated ({donation.spec}): its memory now "
                       "holds that call's result, and the array itself is deleted.")
    return _entry.diagnosis(ctx, __name__, explanation, location=location, notes=notes,
                            error=link.summary.splitlines()[0])
