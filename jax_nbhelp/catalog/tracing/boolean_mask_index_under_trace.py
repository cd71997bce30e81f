"""Indexing with a traced boolean mask: ``x[x > 0]`` or ``x.at[mask].set(v)`` under
``jax.jit`` or ``jax.vmap`` (``NonConcreteBooleanIndexError``).

The result of ``x[mask]`` has as many elements as the mask has True entries, which jit
cannot know when it compiles. The idiomatic rewrites keep the shape (``jnp.where``) or fix
the length (``size=``); both change code the user wrote on purpose, and a sum over
``jnp.where(mask, x, 0)`` adds in a different order than a sum over ``x[mask]``, so the
rewrite is explained with the user's own expressions and never applied mechanically.
"""

from __future__ import annotations

import ast

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, corrected
from jax_nbhelp.core.model import Diagnosis, Location
from jax_nbhelp.diagnosis.context import ErrorContext

CODE = "JNH304"
TITLE = "Boolean mask index on a traced array"
ERROR = "NonConcreteBooleanIndexError"

EXAMPLES = (
    corrected(JAX_IMPORTS, "@jax.jit\ndef positive_sum(x):\n    return x[x > 0].sum()",
              "@jax.jit\ndef positive_sum(x):\n    return jnp.where(x > 0, x, 0).sum()",
              "out = positive_sum(jnp.array([1.0, -2.0, 3.0]))", NO_FIX, "float(out) == 4.0"),
    corrected(JAX_IMPORTS, "@jax.jit\ndef clip_negative(x):\n    return x.at[x < 0].set(0.0)",
              "@jax.jit\ndef clip_negative(x):\n    return jnp.where(x < 0, 0.0, x)",
              "out = clip_negative(jnp.array([1.0, -2.0, 3.0]))", NO_FIX,
              "out.tolist() == [1.0, 0.0, 3.0]"),
)

WHY = _entry.prose("""
jax.jit (and vmap) work with fixed shapes. x[mask] has one element per True entry of the
mask, so its shape depends on the mask's values, which a traced mask does not have until the
compiled program runs. Outside jit the same line works: the mask is concrete.
""")

WHY_UNDER = {
    "vmap": (
        "jax.vmap runs your function once for the whole batch, and the batch of results must "
        "be one array: every element's result has the same shape. x[mask] keeps one element "
        "per True entry, and each element of the batch may have a different count. Keep the "
        "shape instead: jnp.where(mask, x, 0) (a sum then adds zeros), or bound the count "
        "with jnp.nonzero(mask, size=n)."),
}

_ROUNDING = (" (it adds the same numbers with zeros in between, so float rounding can "
             "differ in the last bits)")
_REDUCTIONS = {"sum": "0", "max": "-{jnp}.inf", "min": "{jnp}.inf"}
_UPDATES = {"set": "{value}", "add": "{x} + {value}", "multiply": "{x} * {value}",
            "mul": "{x} * {value}"}


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    return {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _masked(tree: ast.Module, lineno: int) -> list[ast.Subscript]:
    return [
        node for node in ast.walk(tree)
        if isinstance(node, ast.Subscript) and node.lineno <= lineno <= (node.end_lineno or 0)
        and not isinstance(node.slice, (ast.Slice, ast.Constant, ast.Tuple))
    ]


def _rewrite(code: str, tree: ast.Module, node: ast.Subscript, jnp: str) -> str | None:
    """A jnp.where form of the expression around ``node`` (``x[m]`` or ``x.at[m]``)."""
    parents = _parents(tree)
    mask = _tracing.segment(code, node.slice)
    base = node.value
    # x.at[mask].set(v) and friends
    if isinstance(base, ast.Attribute) and base.attr == "at":
        method = parents.get(id(node))
        call = parents.get(id(method)) if method is not None else None
        if isinstance(method, ast.Attribute) and isinstance(call, ast.Call) \
                and method.attr in _UPDATES and len(call.args) == 1:
            x = _tracing.segment(code, base.value)
            value = _tracing.segment(code, call.args[0])
            where = _UPDATES[method.attr].format(x=x, value=value)
            return (f"`{_tracing.segment(code, call)}` keeps its shape written as "
                    f"`{jnp}.where({mask}, {where}, {x})`")
        return None
    x = _tracing.segment(code, base)
    attribute = parents.get(id(node))
    call = parents.get(id(attribute)) if attribute is not None else None
    if isinstance(attribute, ast.Attribute) and isinstance(call, ast.Call) and not call.args:
        if attribute.attr in _REDUCTIONS:
            fill = _REDUCTIONS[attribute.attr].format(jnp=jnp)
            return (f"`{_tracing.segment(code, call)}` is "
                    f"`{jnp}.where({mask}, {x}, {fill}).{attribute.attr}()`"
                    + (_ROUNDING if attribute.attr == "sum" else " (for a float array)"))
        if attribute.attr == "mean":
            return (f"`{_tracing.segment(code, call)}` is "
                    f"`{jnp}.where({mask}, {x}, 0).sum() / ({mask}).sum()`{_ROUNDING}")
    return (f"`{_tracing.segment(code, node)}` keeps a fixed shape as "
            f"`{jnp}.where({mask}, {x}, 0)` (0 where the mask is False), or a fixed length as "
            f"`{x}[{jnp}.nonzero({mask}, size=k)[0]]` (the first k True entries)")


def advice(ctx: ErrorContext, location: Location | None) -> str:
    jnp, _ = _tracing.spellings(ctx)
    parsed = _tracing.parse(location.source) if location is not None else None
    if parsed is not None and location is not None:
        tree, code = parsed
        for node in _masked(tree, location.lineno):
            rewrite = _rewrite(code, tree, node, jnp)
            if rewrite is not None:
                return f"Under jit, {rewrite}."
    return (f"Keep the shape fixed: `{jnp}.where(mask, x, 0)` instead of x[mask], "
            f"`{jnp}.where(mask, new, x)` instead of x.at[mask].set(new), or fix the length "
            f"with `{jnp}.nonzero(mask, size=k)`.")


TRIGGERS = (ERROR,)


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    link = _tracing.error_link(ctx, ERROR)
    if link is None:
        return None
    location = ctx.deepest_user_location()
    call_site = ctx.call_site()
    subject = _tracing.quoted_line(location, "A line")
    transform = _tracing.transform_at(ctx, location)
    if transform == "vmap":
        explanation = (f"{subject} indexes an array with a boolean mask under jax.vmap: each "
                       "element of the batch may select a different number of elements, "
                       "and a batch must have one shape.")
    else:
        explanation = (f"{subject} indexes an array with a boolean mask that is traced, so "
                       "the number of selected elements is unknown while JAX traces it.")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=call_site if call_site != location else ctx.failing_cell(),
                            notes=(advice(ctx, location),),
                            why=_tracing.why_under(transform, WHY_UNDER, WHY))
