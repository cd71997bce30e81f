"""Indexing with a traced boolean mask: ``x[x > 0]`` or ``x.at[mask].set(v)`` under
``jax.jit`` or ``jax.vmap`` (``NonConcreteBooleanIndexError``).

The result of ``x[mask]`` has as many elements as the mask has True entries, which jit
cannot know when it compiles. The idiomatic rewrites keep the shape (``jnp.where``) or fix
the length (``size=``).

An update ``x.at[mask].set(v)`` (or ``add``, ``subtract``, ``multiply``; ``divide`` for a
float array) is rewritten as ``jnp.where(mask, v, x)`` (``jnp.where(mask, x + v, x)``) when
that is the same computation, as read from the line's live values: ``x`` is a name holding
an array, the mask has its shape (a boolean array of it, or a comparison of it with one
number, or ``&``, ``|``, ``~`` of such), and ``v`` is one number whose type leaves ``x``'s
dtype as it is (an int for an int or float array, a float for a float array). Selecting
``x[mask]`` is explained with the user's own expressions and never applied mechanically:
what the rest of the code does with the selected elements is the user's choice. A
selection counted or reduced on the spot is rewritten where the number is the same:
``len(x[m])`` (``.size``, ``.shape[0]``) as ``jnp.count_nonzero(m)``, an integer array's
``x[m].sum()`` as ``jnp.sum(x, where=m)``, a float array's ``x[m].max()`` (``min``) as
``jnp.max(x, where=m, initial=-jnp.inf)``; a float array's ``x[m].sum()`` and any
``x[m].mean()`` as ``jnp.sum(x, where=m)`` and ``jnp.mean(x, where=m)``, which add the same
numbers in another order: the same value up to float rounding, and the card says so.

Reports: jax-ml/jax#21994 and probml/probml-notebooks#70 (``x.at[x < 0].set(0)`` under
jit), jax-ml/jax#5186 (a disc filled through a mask ``r < radius`` in jitted optics code).
"""

from __future__ import annotations

import ast
from dataclasses import replace

from jax_nbhelp.catalog import _data_size, _entry, _jit_split, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, corrected
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.line_values import Value
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH304"
TITLE = "Boolean mask index on a traced array"
ERROR = "NonConcreteBooleanIndexError"
_WHERE = "Use jnp.where"

_SELECTED = ("x = jnp.array([1.0, -2.0, 3.0])\n@jax.jit\ndef doubled_positives(v):\n"
             "    return v[v > 0] * 2")

_ABOVE = ("def over(v):\n    return v > v.mean()\n\n@jax.jit\ndef above_mean(x):\n"
          "    mask = over(x)\n    y = x[mask]\n    return y.mean()")
_ABOVE_SPLIT = ("def over(v):\n    return v > v.mean()\n\n@jax.jit\n"
                "def _above_mean_compiled(y):\n    return y.mean()\n\n\ndef above_mean(x):\n"
                "    mask = over(x)\n    y = x[mask]\n    return _above_mean_compiled(y)")

EXAMPLES = (
    # a float sum: the same numbers added in another order (same up to float rounding)
    corrected(JAX_IMPORTS, "@jax.jit\ndef positive_sum(x):\n    return x[x > 0].sum()",
              "@jax.jit\ndef positive_sum(x):\n    return jnp.sum(x, where=x > 0)",
              "out = positive_sum(jnp.array([1.0, -2.0, 3.0]))", "Use jnp.sum(x, where=x > 0)",
              "float(out) == 4.0"),
    corrected(JAX_IMPORTS, "@jax.jit\ndef positive_mean(x):\n    return x[x > 0].mean()",
              "@jax.jit\ndef positive_mean(x):\n    return jnp.mean(x, where=x > 0)",
              "out = positive_mean(jnp.array([1.0, -2.0, 3.0]))",
              "Use jnp.mean(x, where=x > 0)", "float(out) == 2.0"),
    corrected(JAX_IMPORTS, "@jax.jit\ndef clip_negative(x):\n    return x.at[x < 0].set(0.0)",
              "@jax.jit\ndef clip_negative(x):\n    return jnp.where(x < 0, 0.0, x)",
              "out = clip_negative(jnp.array([1.0, -2.0, 3.0]))", _WHERE,
              "out.tolist() == [1.0, 0.0, 3.0]"),
    # an int array, a threshold passed in, an add: x + 10 where the mask holds, x elsewhere
    corrected(JAX_IMPORTS, "@jax.jit\ndef lift_low(x, low):\n    return x.at[x < low].add(10)",
              "@jax.jit\ndef lift_low(x, low):\n    return jnp.where(x < low, x + 10, x)",
              "out = lift_low(jnp.arange(5), 2)", _WHERE,
              "out.tolist() == [10, 11, 2, 3, 4] and out.dtype == jnp.int32"),
    # a selection counted or reduced on the spot, where the same number needs no selection
    corrected(JAX_IMPORTS, "@jax.jit\ndef positives(x):\n    return len(x[x > 0])",
              "@jax.jit\ndef positives(x):\n    return jnp.count_nonzero(x > 0)",
              "out = positives(jnp.array([1.0, -2.0, 3.0]))", "Use jnp.count_nonzero(x > 0)",
              "int(out) == 2"),
    corrected(JAX_IMPORTS, "@jax.jit\ndef big_total(x):\n    return x[x > 2].sum()",
              "@jax.jit\ndef big_total(x):\n    return jnp.sum(x, where=x > 2)",
              "out = big_total(jnp.arange(6))", "Use jnp.sum(x, where=x > 2)", "int(out) == 12"),
    corrected(JAX_IMPORTS, "@jax.jit\ndef worst(x):\n    return x[x < 0].min()",
              "@jax.jit\ndef worst(x):\n    return jnp.min(x, where=x < 0, initial=jnp.inf)",
              "out = worst(jnp.array([-1.0, 2.0, -3.0]))", "Reduce with where=",
              "float(out) == -3.0"),
    # 0.5 into an int array: jnp.where would make it float, .at[].set truncates; no fix
    corrected(JAX_IMPORTS, "@jax.jit\ndef halve_low(x):\n    return x.at[x < 2].set(0.5)",
              "@jax.jit\ndef halve_low(x):\n    return jnp.where(x < 2, 0, x)",
              "out = halve_low(jnp.arange(4))", NO_FIX, "out.tolist() == [0, 0, 2, 3]"),
    # a selection kept as an array: the same elements through jnp.nonzero with the count
    # this call's mask gives
    corrected(JAX_IMPORTS, _SELECTED,
              _SELECTED.replace("v[v > 0]", "v[jnp.nonzero(v > 0, size=2)]"),
              "out = doubled_positives(x)", "Select with jnp.nonzero(..., size=2)",
              "out.tolist() == [2.0, 6.0]"),
    # a mask made by a function of the user's: the selection runs before jit, on the
    # call's values, and the rest is compiled (_jit_split)
    corrected(JAX_IMPORTS, _ABOVE, _ABOVE_SPLIT, "m = above_mean(jnp.array([1.0, 5.0, 2.0, 8.0]))",
              "Compute y before jit", "float(m) == 6.5"),
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

_FLOATS = ("float", "bfloat", "complex")
_INTEGERS = ("int", "uint")

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


def _number(node: ast.expr, values: dict[str, Value]) -> str | None:
    """"int" or "float" for one number (a literal, or a name holding a 0-d value whose
    type JAX lets the array's dtype decide), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        node = node.operand
    if isinstance(node, ast.Constant) and not isinstance(node.value, bool):
        if isinstance(node.value, int):
            return "int"
        return "float" if isinstance(node.value, float) else None
    if isinstance(node, ast.Name) and node.id in values:
        held = values[node.id]
        if held.kind == "python" and held.summary in ("int", "float"):
            return held.summary
        if held.shape == () and held.weak and held.dtype is not None:
            return "float" if held.dtype.startswith(_FLOATS) else (
                "int" if held.dtype.startswith(_INTEGERS) else None)
    return None


def _fits(node: ast.expr, shape: tuple[int, ...], values: dict[str, Value]) -> bool:
    """Whether the mask ``node`` is a boolean array of exactly ``shape``: a name holding
    one, a comparison of an array of that shape with one number, or ``&``, ``|``, ``^``,
    ``~`` of such."""
    if isinstance(node, ast.Name):
        held = values.get(node.id)
        return held is not None and held.shape == shape and held.dtype == "bool"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        return _fits(node.operand, shape, values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd | ast.BitOr | ast.BitXor):
        return _fits(node.left, shape, values) and _fits(node.right, shape, values)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        sides = [node.left, node.comparators[0]]
        arrays = [s for s in sides if isinstance(s, ast.Name) and s.id in values
                  and values[s.id].shape == shape]
        return len(arrays) == 1 and all(s in arrays or _number(s, values) for s in sides)
    return False


def where_fix(ctx: ErrorContext, location: Location | None) -> Fix | None:
    """``x.at[mask].set(v)`` written as ``jnp.where(mask, v, x)`` where the two compute the
    same: ``x`` a name holding an array, a mask of its shape, ``v`` one number that leaves
    ``x``'s dtype as it is (the line's live values say)."""
    parsed = _tracing.parse(location.source) if location is not None else None
    if location is None or parsed is None:
        return None
    tree, code = parsed
    values = {value.text: value for value in ctx.values_at(location)}
    parents = _parents(tree)
    updates = []  # x.at[mask].method(v)
    for node in _masked(tree, location.lineno):
        attribute = parents.get(id(node))
        call = parents.get(id(attribute)) if attribute is not None else None
        if (isinstance(node.value, ast.Attribute) and node.value.attr == "at"
                and isinstance(attribute, ast.Attribute)
                and isinstance(call, ast.Call) and len(call.args) == 1 and not call.keywords):
            updates.append((node, attribute.attr, call))
    if not updates:
        return None
    # the updates the codemod writes with jnp.where, and the operator each applies
    from jax_nbhelp.rewrite.masked_update_to_where import WHERE_OPERATORS

    found = [update for update in updates if update[1] in WHERE_OPERATORS]
    if len(found) != 1:
        return None
    (node, method, call), = found
    array = node.value.value  # type: ignore[attr-defined]
    held = values.get(array.id) if isinstance(array, ast.Name) else None
    if held is None or not held.is_array or held.dtype is None:
        return None
    number = _number(call.args[0], values)
    floating = held.dtype.startswith(_FLOATS)
    keeps_dtype = floating if number == "float" else (
        number == "int" and (floating or held.dtype.startswith(_INTEGERS)))
    if not keeps_dtype or (method == "divide" and not floating) \
            or not _fits(node.slice, held.shape or (), values):
        return None
    jnp, _ = _tracing.spellings(ctx)
    mask, x = _tracing.segment(code, node.slice), array.id
    value = _tracing.segment(code, call.args[0])
    operator = WHERE_OPERATORS[method]
    new = f"{x} {operator} {value}" if operator else value
    where = f"{jnp}.where({mask}, {new}, {x})"
    updated = "gets" if method == "set" else "becomes"
    lineno = location.lineno

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.masked_update_to_where import masked_update_to_where

        return masked_update_to_where(source, lineno, jnp)

    return rewrite_fix(
        ctx, location, transform, label=_WHERE,
        summary=(f"Write `{_tracing.segment(code, call)}` as `{where}`: the same update, "
                 "with the array's shape fixed, which jit can compile."),
        safety=(f"Same values: where {mask} holds, {x} {updated} {new}; elsewhere it keeps "
                f"its value. The result has {x}'s shape and dtype ({held.summary.split()[-1]})."),
        safe=True)


_REDUCTIONS_IN_PLACE = ("sum", "max", "min", "mean")
_COUNTS = ("size",)


def _selection_use(tree: ast.Module, code: str, node: ast.Subscript, jnp: str
                   ) -> tuple[ast.expr, str] | None:
    """The expression that uses the selection ``x[mask]`` right away, and what the
    reduction is: ``x[m].sum()``, ``jnp.sum(x[m])`` (``"sum"``, ``"max"``, ``"min"``), or
    ``len(x[m])``, ``x[m].size``, ``x[m].shape[0]`` (``"count"``); None for any other use."""
    parents = _parents(tree)
    up = parents.get(id(node))
    if isinstance(up, ast.Attribute):
        call = parents.get(id(up))
        if up.attr in _REDUCTIONS_IN_PLACE and isinstance(call, ast.Call) and call.func is up \
                and not call.args and not call.keywords:
            return call, up.attr
        if up.attr in _COUNTS:
            return up, "count"
        if up.attr == "shape":
            item = parents.get(id(up))
            if isinstance(item, ast.Subscript) and isinstance(item.slice, ast.Constant) \
                    and item.slice.value == 0:
                return item, "count"
    if isinstance(up, ast.Call) and up.args == [node] and not up.keywords:
        name = ast.unparse(up.func)
        if name == "len":
            return up, "count"
        if name in {f"{jnp}.{r}" for r in _REDUCTIONS_IN_PLACE}:
            return up, name.rsplit(".", 1)[1]
    return None


def reduction_fix(ctx: ErrorContext, location: Location | None) -> Fix | None:
    """A selection reduced on the spot, written without the selection where that computes
    exactly the same number: ``len(x[m])`` as ``jnp.count_nonzero(m)``, an integer array's
    ``x[m].sum()`` as ``jnp.sum(x, where=m)`` (integer sums do not round), a float array's
    ``x[m].max()`` as ``jnp.max(x, where=m, initial=-jnp.inf)`` (the same element, or -inf
    where nothing is selected and x[m].max() has no value at all); a float array's sum,
    and any mean, as ``jnp.sum(x, where=m)`` and ``jnp.mean(x, where=m)``: the same numbers
    added in another order, so the same value up to float rounding (``Fix.rounding``)."""
    parsed = _tracing.parse(location.source) if location is not None else None
    if location is None or parsed is None:
        return None
    tree, code = parsed
    jnp, _ = _tracing.spellings(ctx)
    values = {value.text: value for value in ctx.values_at(location)}
    found = []
    for node in _masked(tree, location.lineno):
        use = _selection_use(tree, code, node, jnp)
        array = node.value
        held = values.get(ast.unparse(array))
        if use is None or held is None or not held.is_array or held.dtype is None \
                or not _fits(node.slice, held.shape or (), values):
            continue
        floating = held.dtype.startswith(_FLOATS)
        expression, reduction = use
        rounding = False
        x, mask = _tracing.segment(code, array), _tracing.segment(code, node.slice)
        if reduction == "count":
            after = f"{jnp}.count_nonzero({mask})"
            why = f"`{after}` counts the elements {mask} selects, as the selection's length does"
        elif reduction == "sum" and held.dtype.startswith(_INTEGERS):
            after = f"{jnp}.sum({x}, where={mask})"
            why = (f"`{after}` adds the same integers (the others count as 0), and integer "
                   "sums do not round")
        elif reduction in ("sum", "mean") and (floating or reduction == "mean"):
            after = f"{jnp}.{reduction}({x}, where={mask})"
            why = (f"`{after}` {'adds' if reduction == 'sum' else 'averages'} the same "
                   f"numbers (the others left out), in another order, so float rounding can "
                   f"differ in the last bits; where {mask} selects nothing it gives "
                   + ("0, as the empty sum is" if reduction == "sum" else
                      "nan, as the empty mean does"))
            rounding = True
        elif reduction in ("max", "min") and floating and len(held.shape or ()) >= 1:
            initial = f"-{jnp}.inf" if reduction == "max" else f"{jnp}.inf"
            after = f"{jnp}.{reduction}({x}, where={mask}, initial={initial})"
            why = (f"`{after}` picks the same element; where {mask} selects nothing it gives "
                   f"{initial}, where the selection has no {reduction} at all")
        else:
            continue
        found.append((expression, after, why, rounding))
    if len(found) != 1:
        return None
    expression, after, why, rounding = found[0]
    before = _tracing.segment(code, expression)
    lineno = expression.lineno
    if lineno != expression.end_lineno or "\n" in before:
        return None
    transform = _tracing.replacing(expression, before, after)

    return replace(rewrite_fix(
        ctx, location, transform,
        label=f"Use {after}" if len(after) <= 30 else "Reduce with where=",
        summary=(f"Write `{before}` as `{after}` on line {lineno}: no selection of unknown "
                 "length, the same number; then re-run."),
        safety=f"{'' if rounding else 'Same value: '}{why}.", safe=True), rounding=rounding)


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
    fix = where_fix(ctx, location) or reduction_fix(ctx, location)
    if fix is None and transform != "vmap":
        # a selection kept as it is: the length this call's mask gives (_data_size)
        found = _tracing.traced(ctx, link, frames=True, shown_only=False)
        # else the statements up to the selection run before jit (_jit_split)
        fix = _data_size.mask_fix(ctx, found) or _jit_split.fix(ctx, found)
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=call_site if call_site != location else ctx.failing_cell(),
                            fixes=(fix,) if fix is not None else (),
                            notes=(advice(ctx, location),) if fix is None else (),
                            why=_tracing.why_under(transform, WHY_UNDER, WHY))
