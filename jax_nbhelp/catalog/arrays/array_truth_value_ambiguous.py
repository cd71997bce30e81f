"""``if``, ``while``, ``and``, ``or``, ``not`` or ``bool()`` on a JAX array of several elements
(``ValueError: The truth value of an array with more than one element is ambiguous. Use
a.any() or a.all()``).

Python asks the array for one True or False; an array of several booleans has none. What
to write depends on what the user meant, and the line says which: a condition that must
hold everywhere (``.all()``) or somewhere (``.any()``), a choice made per element
(``jnp.where``), or an elementwise ``&``/``|`` where ``and``/``or`` was written. The
explanation names those in the user's own expression; there is no fix, since each one
computes something else. The exception is a chained comparison used as a value
(``m = 0 <= x < 1``), which reads one way only: each comparison per element, joined by
``&`` (the fix, shared with JNH301).

Only JAX's own raise is claimed: the same text from a NumPy array is NumPy's error.

Reports: gbionics/jaxsim#176 (a dataclass ``__eq__`` calling ``bool()`` on an array),
marin-community/haliax#31 and marin-community/marin#1945 (``bool`` of an array in Levanter),
PlasmaControl/DESC#1288 (equality of array constants). JAX's docs teach it in the control
flow tutorials.
"""

from __future__ import annotations

import ast

from jax_nbhelp.catalog import _chained, _entry, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match

CODE = "JNH504"
TITLE = "True or False asked of an array of several elements"
MESSAGE = "The truth value of an array with more than one element is ambiguous"

EXAMPLES = (
    corrected_cell((JAX_IMPORTS, "x = jnp.array([-1.0, 2.0, 3.0])"),
                   "if x > 0:\n    y = jnp.log(x)\nelse:\n    y = x",
                   "y = jnp.where(x > 0, jnp.log(jnp.abs(x)), x)", NO_FIX,
                   "float(y[0]) == -1.0"),
    corrected_cell((JAX_IMPORTS, "x = jnp.array([0.5, 2.0, 4.0])"),
                   "inside = (x > 0) and (x < 3)", "inside = (x > 0) & (x < 3)", NO_FIX,
                   "inside.tolist() == [True, True, False]"),
    corrected_cell((JAX_IMPORTS, "x = jnp.array([-0.5, 0.5, 1.5])"),
                   "inside = 0 <= x < 1", "inside = (0 <= x) & (x < 1)",
                   "Use (0 <= x) & (x < 1)", "inside.tolist() == [False, True, False]"),
)

WHY = _entry.prose("""
Python's if, while, and, or, not and bool() need one True or False. An array of several
booleans holds one per element, and which single answer you mean is yours to say: that all
of them hold (.all()), that any does (.any()), or, when each element should be treated on
its own, an elementwise choice with jnp.where (and & and | instead of and and or).
""")


def _condition(location_source: str | None, lineno: int) -> tuple[str, str, str] | None:
    """The construct that asked for a truth value on the line, the expression asked, and
    (for ``and``/``or``) the elementwise spelling."""
    parsed = _tracing.parse(location_source)
    if parsed is None:
        return None
    tree, code = parsed
    for node in ast.walk(tree):
        if not hasattr(node, "lineno"):
            continue
        if isinstance(node, ast.If | ast.While) and node.test.lineno == lineno:
            return ("if" if isinstance(node, ast.If) else "while",
                    _tracing.segment(code, node.test), "")
        if isinstance(node, ast.IfExp) and node.lineno <= lineno <= (node.end_lineno or 0):
            return "if", _tracing.segment(code, node.test), ""
        if isinstance(node, ast.Assert) and node.lineno == lineno:
            return "assert", _tracing.segment(code, node.test), ""
        if isinstance(node, ast.BoolOp) and node.lineno <= lineno <= (node.end_lineno or 0):
            operator = " & " if isinstance(node.op, ast.And) else " | "
            elementwise = operator.join(f"({_tracing.segment(code, value)})"
                                        for value in node.values)
            return ("and" if isinstance(node.op, ast.And) else "or",
                    _tracing.segment(code, node.values[0]), elementwise)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and \
                node.lineno <= lineno <= (node.end_lineno or 0):
            return "not", _tracing.segment(code, node.operand), ""
    return None


MATCH = Match(MESSAGE, "ValueError")


# jit's own comparisons of static arguments and pytree aux data, which raised it: JNH553's
_JIT_COMPARED = ("static arguments should be comparable using __eq__",
                 "checking equality of metadata fields of pytree")


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    if any(text in other.message for other in ctx.chain for text in _JIT_COMPARED):
        return None
    location = ctx.deepest_user_location()
    found = _condition(location.source, location.lineno) if location is not None else None
    jnp = ctx.alias("jax.numpy") or "jnp"
    subject = _tracing.quoted_line(location, "Your code")
    values = {v.text: v for v in ctx.values_at(location)}
    if found is None:
        explanation = (f"{subject} asks an array of several elements for a single True or "
                       "False.")
        notes = ["Say which answer you mean: .all(), .any(), or an elementwise "
                 f"{jnp}.where(...)."]
    else:
        construct, test, elementwise = found
        named = ", ".join(f"{v.text} is {v.summary}" for v in values.values() if v.is_array)
        shapes = f" ({named})" if named else ""
        explanation = (f"{subject} asks `{test}` for a single True or False ({construct}), "
                       f"and it is an array of several elements{shapes}.")
        if construct in ("and", "or"):
            operator = "&" if construct == "and" else "|"
            notes = [f"For an elementwise result, write `{operator}` instead of "
                     f"`{construct}`, with each side in parentheses: `{elementwise}`; for "
                     "one answer, .all() or .any() of that."]
        else:
            notes = [f"If the condition must hold for every element, write `({test}).all()`; "
                     f"for at least one, `({test}).any()`.",
                     "If each element should take its own branch, compute both branches "
                     f"and pick per element: `{jnp}.where({test}, <if true>, <if false>)` "
                     "(both branches are computed for every element, so each must be safe "
                     "for every element)."]
    fixes: tuple[Fix, ...] = ()
    parsed = _tracing.parse(location.source) if location is not None else None
    chains = _chained.chains_on_line(parsed[0], location.lineno) if parsed and location else []
    if len(chains) == 1 and location is not None and parsed is not None:
        fix = _chained.chained_comparison_fix(ctx, location, parsed[0], parsed[1], chains[0])
        if fix is not None:
            fixes = (fix,)
            test = _tracing.segment(parsed[1], chains[0])
            explanation = (f"{subject} chains comparisons, `{test}`: Python asks the first "
                           "comparison for a single True or False before it makes the next, "
                           "and it is an array of several elements.")
            notes = []
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), notes=notes, fixes=fixes,
                            error=link.summary.splitlines()[0])
