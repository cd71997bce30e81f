"""A ``jax.custom_vjp`` backward rule whose output does not match the primal function's
arguments: a bare cotangent where a one-argument function needs a 1-tuple, or too few
cotangents (``TypeError: Custom VJP bwd rule must produce an output with the same container
(pytree) structure as the args tuple of the primal function ... but got bwd output structure
PyTreeDef(*) for primal input structure PyTreeDef((*,)).``).

The backward rule returns one cotangent per primal argument, always as a tuple. JAX's
traceback does not show the rule; the entry finds it from the ``custom_vjp`` functions of
the notebook with that many arguments (when exactly one fits). A bare value for a
one-argument function is wrapped in a tuple, which is what it meant; a tuple of the wrong
length is explained (the missing cotangents are the user's math, or ``None`` for an
argument not differentiated).

Reports: jax-ml/jax#8356 (a rule returning ``(None, None)`` for a tuple argument),
jax-ml/jax#4673 (a structure that stopped matching after an upgrade),
patrick-kidger/diffrax#287 (a custom pytree in the cotangent).
"""

from __future__ import annotations

import ast
import inspect
import re
from typing import Any

from jax_nbhelp.catalog import _entry, _scopes, _static_site, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, corrected
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH524"
TITLE = "custom_vjp backward rule returns the wrong structure"
MESSAGE = "Custom VJP bwd rule must produce an output with the same container"

_STRUCTURES = re.compile(r"bwd output structure (?P<bwd>PyTreeDef\(.*?\)) for primal input "
                         r"structure (?P<primal>PyTreeDef\(.*?\))\.?$", re.S)
# the same check in JAX's newer custom_vjp path (hijax.py), which names the rule itself
TUPLE = "must produce a tuple"
_TUPLE_RE = re.compile(r"Custom VJP bwd rule <function (?P<rule>[\w.<>]+) at 0x[0-9a-f]+> "
                       r"must produce a tuple (?:but got <class '(?P<type>[\w.]+)'>|of length "
                       r"equal to the primal args tuple, but got length (?P<length>\d+))")
SITES = ("custom_derivatives.py:_flatten_bwd", "hijax.py:vjp_bwd_retval")
_CUSTOM_VJP = "jax._src.custom_derivatives.custom_vjp"
_CUSTOM_VJP3 = "jax._src.hijax.custom_vjp3"  # under jax_custom_vjp3 (primal: ``f``)

_RULE = ("@jax.custom_vjp\ndef clipped(x):\n    return x\n\n"
         "def clipped_fwd(x):\n    return x, None\n\n"
         "def clipped_bwd(_, g):\n    return jnp.clip(g, -1.0, 1.0)\n\n"
         "clipped.defvjp(clipped_fwd, clipped_bwd)")
_TWO = ("@jax.custom_vjp\ndef scale(x, s):\n    return x * s\n\n"
        "def scale_fwd(x, s):\n    return x * s, s\n\n"
        "def scale_bwd(s, g):\n    return (g * s,)\n\nscale.defvjp(scale_fwd, scale_bwd)")

_SHAPED = ("@jax.custom_vjp\ndef filled(v, shape):\n    return jnp.full(shape, v)\n\n"
           "def filled_fwd(v, shape):\n    return filled(v, shape), None\n\n"
           "def filled_bwd(_, g):\n    return (g.sum(),)\n\nfilled.defvjp(filled_fwd, filled_bwd)")

EXAMPLES = (
    corrected(JAX_IMPORTS, _RULE, _RULE.replace("return jnp.clip(g, -1.0, 1.0)",
                                             "return (jnp.clip(g, -1.0, 1.0),)"),
              "g = jax.grad(lambda x: 3.0 * clipped(x))(2.0)",
              "Return a tuple from clipped_bwd", "float(g) == 1.0"),
    corrected(JAX_IMPORTS, _TWO, _TWO.replace("return (g * s,)", "return (g * s, None)"),
              "g = jax.grad(scale)(2.0, 3.0)", NO_FIX, "float(g) == 3.0"),
    # the argument left out is a shape of integers: its cotangent is None
    corrected(JAX_IMPORTS, _SHAPED, _SHAPED.replace("return (g.sum(),)", "return (g.sum(), None)"),
              "g = jax.grad(lambda v: filled(v, (2, 3)).sum())(1.5)",
              "Return None for the integer argument", "float(g) == 6.0"),
)

WHY = _entry.prose("""
A custom_vjp's backward rule receives the residuals and the output's cotangent, and returns
the cotangents of the primal function's inputs: one per positional argument, in a tuple,
even when there is only one (`return (g,)`). An argument that is not differentiated gets
None in its place.
""")


def _count(structure: str) -> int | None:
    """How many elements a ``PyTreeDef((*, *))`` tuple has (None when it is not a tuple)."""
    inner = structure.removeprefix("PyTreeDef(").removesuffix(")")
    if not inner.startswith("(") or not inner.endswith(")"):
        return None
    body = inner[1:-1].strip().rstrip(",")
    depth, count = 0, 1 if body else 0
    for char in body:
        depth += char in "([{"
        depth -= char in ")]}"
        count += char == "," and depth == 0
    return count


def _defined(ctx: ErrorContext) -> list[tuple[str, Any, Any]]:
    """The notebook's custom_vjp functions that have rules: (name, backward, primal)."""
    found = []
    for name, value in [*ctx.globals_of_type(_CUSTOM_VJP), *ctx.globals_of_type(_CUSTOM_VJP3)]:
        primal = getattr(value, "fun", None) or getattr(value, "f", None)
        backward = getattr(value, "bwd", None)
        if primal is not None and backward is not None:  # else no rule defined yet
            found.append((name, backward, primal))
    return found


def _arity(primal: Any) -> int | None:
    try:
        parameters = inspect.signature(primal).parameters.values()
    except (TypeError, ValueError):
        return None
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)


def _rules(ctx: ErrorContext, arity: int) -> list[tuple[str, Any]]:
    """The notebook's custom_vjp functions whose primal takes ``arity`` arguments."""
    return [(name, backward) for name, backward, primal in _defined(ctx)
            if _arity(primal) == arity]


MATCH = Match(MESSAGE, also=(TUPLE,), sites=SITES)


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    found = _STRUCTURES.search(link.message)
    named = _TUPLE_RE.search(link.message) if found is None else None
    if found is not None:
        arity, returned = _count(found["primal"]), _count(found["bwd"])
        rules = _rules(ctx, arity) if arity is not None else []
    elif named is not None:  # the rule is named: its custom_vjp says how many arguments
        rule = named["rule"].rsplit(".", 1)[-1]
        matching = [defined for defined in _defined(ctx)
                    if getattr(defined[1], "__name__", None) == rule]
        rules = [(name, backward) for name, backward, _ in matching]
        arity = _arity(matching[0][2]) if len(matching) == 1 else None
        returned = int(named["length"]) if named["length"] is not None else None
    else:
        return None  # another check of the rule's output: not its structure
    if arity is None:
        return None
    name, backward = rules[0] if len(rules) == 1 else (None, None)
    where = _entry.def_location(ctx, backward) if backward is not None else None
    rule = (f"The backward rule of {name} ({backward.__name__})" if backward is not None
            else "The backward rule")
    what = "a single value, not a tuple" if returned is None else \
        f"a tuple of {returned}"
    explanation = (f"{rule} returns {what}, and it must return a tuple "
                   f"of {arity} cotangent{'s' if arity != 1 else ''}, one per argument of "
                   f"the function.")
    fixes: list[Fix] = []
    notes: list[str] = []
    integers = _none_for_integers_fix(ctx, backward, arity, returned) \
        if backward is not None and returned is not None and returned < arity else None
    if arity == 1 and returned is None and where is not None and backward is not None:
        fixes.append(_fix(ctx, where, backward.__name__))
    elif integers is not None:
        fixes.append(integers)
    else:
        notes.append(f"Return one cotangent per argument, in order, as a tuple of {arity}; "
                     "use None for an argument that is not differentiated.")
    return _entry.diagnosis(ctx, __name__, explanation, location=where or
                            ctx.deepest_user_location(), call_site=ctx.call_site(),
                            fixes=fixes, notes=notes,
                            error=link.summary.split(", and in particular", 1)[0] + ".")


def _fix(ctx: ErrorContext, where: Location, function: str) -> Fix:
    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.tuple_returns import returns_as_one_tuple

        return returns_as_one_tuple(source, where.lineno)

    return rewrite_fix(
        ctx, where, transform, label=f"Return a tuple from {function}",
        summary=(f"Make {function} return its cotangent as a 1-tuple (`return (g,)`); then "
                 "re-run."),
        safety="Same values: the same cotangent, in the tuple JAX expects for one argument.",
        safe=True)


def _integer_arguments(ctx: ErrorContext, arity: int) -> list[list[str]] | None:
    """The dtypes of each primal argument's leaves, as JAX's own frame that checked the
    rule's output holds them (``in_tree`` and ``in_avals`` of ``_flatten_bwd``)."""
    checker = next((f for f in reversed(ctx.top.frames)
                    if f.function == "_flatten_bwd" and not f.is_user), None)
    live = ctx.live_frame_of(checker) if checker is not None else None
    tree = live.f_locals.get("in_tree") if live is not None else None
    avals = live.f_locals.get("in_avals") if live is not None else None
    children = getattr(tree, "children", None)
    if children is None or type(avals) not in (list, tuple):
        return None
    counts = [getattr(child, "num_leaves", None) for child in children()]
    if len(counts) != arity or not all(type(c) is int for c in counts) \
            or sum(counts) != len(avals):  # type: ignore[arg-type]
        return None
    dtypes = [str(getattr(aval, "dtype", "")) for aval in avals]  # type: ignore[union-attr]
    found, start = [], 0
    for count in counts:
        found.append(dtypes[start:start + count])  # type: ignore[operator]
        start += count  # type: ignore[operator]
    return found


def _none_for_integers_fix(ctx: ErrorContext, backward: Any, arity: int,
                           returned: int) -> Fix | None:
    """``return g * s, jnp.sum(g * x)`` from the rule of ``paste(x, s, shape)``: the
    arguments the rule returns no cotangent for come last and hold only integers (a shape),
    which have no derivative: JAX takes None for each (jax-ml/jax#8356). Each of the rule's
    returns, a tuple written on one line, gets a None per missing argument."""
    dtypes = _integer_arguments(ctx, arity)
    name = getattr(backward, "__name__", "")
    found = _static_site.latest_top_level(ctx, ast.FunctionDef, name) if name else None
    if dtypes is None or found is None:
        return None
    missing = dtypes[returned:]
    if not all(leaves and all(d.startswith(("int", "uint", "bool")) for d in leaves)
               for leaves in missing):
        return None  # a float argument: its cotangent is the user's math
    place, function = found
    code = place.source or ""
    returns = [n for n in _scopes.own_nodes(function) if isinstance(n, ast.Return)]
    if not returns or not all(isinstance(r.value, ast.Tuple) and len(r.value.elts) == returned
                              and r.value.lineno == r.value.end_lineno for r in returns):
        return None
    nones = ", None" * len(missing)
    edits: list[tuple[ast.AST, str, str]] = []
    for value in [r.value for r in returns if r.value is not None]:
        before = _tracing.segment(code, value, strip=False)
        after = (before[:-1].rstrip().rstrip(",") + nones + ")"
                 if before.startswith("(") and before.endswith(")") else before + nones)
        edits.append((value, before, after))
    transform = _tracing.replacing_each(edits)
    primal = next((p for _, b, p in _defined(ctx) if b is backward), None)
    try:
        params = list(inspect.signature(primal).parameters) if primal is not None else []
    except (TypeError, ValueError):
        params = []
    names = ", ".join(
        f"{params[returned + i] if returned + i < len(params) else f'argument {returned + i + 1}'}"
        f" ({', '.join(sorted(set(d)))})" for i, d in enumerate(missing))
    return rewrite_fix(
        ctx, place, transform, label=f"Return None for the integer argument"
        f"{'s' if len(missing) > 1 else ''}",
        summary=(f"Add {nones[2:]} to what {name} returns, one None per argument it gives no "
                 f"cotangent for ({names}); then re-run."),
        safety=(f"Same values: {names} hold{'s' if len(missing) == 1 else ''} only integers, "
                "which have no derivative, and None is the cotangent JAX takes for them."),
        safe=True)
