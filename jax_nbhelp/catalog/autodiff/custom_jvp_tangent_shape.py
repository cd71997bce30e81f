"""A ``jax.custom_jvp`` rule whose tangent output has another shape or dtype than the
function's output (``TypeError: Custom JVP rule must produce primal and tangent outputs
with corresponding shapes and dtypes. Expected float32[] (tangent type of float32[]) but
got float32[1].``), or a ``jax.custom_vjp`` backward rule whose cotangent has another
shape than its argument (``ValueError: Custom VJP bwd rule must produce an output with the
same type as the args tuple of the primal function, but at output[0] the bwd rule produced
an output of type float32[1] corresponding to an input of type float32[]``).

JAX checks the rule's two outputs against each other after the rule has returned, so its
traceback does not show the rule. The entry finds it (the ``custom_jvp`` the user's line
called, or the notebook's one custom_jvp (custom_vjp) with a rule) and names its return
line. Where the tangent holds as many values as the output (a ``[1]`` tangent for a scalar,
a ``[3, 1]`` one for a ``[3]`` output) and the dtypes agree, the fix reshapes the returned
tangent (the backward rule's cotangent at the output JAX names) to the shape JAX requires:
the same values. Another size or dtype is the rule's math, explained only.

Reports: jax-ml/jax#2502 (a rule returning a ``[1]`` tangent for a scalar output),
patrick-kidger/equinox#869 (the several-output wording), jax-ml/jax#28757 (the same check
of a custom_vjp's backward rule, whose message JAX made name the shapes).
"""

from __future__ import annotations

import ast
import math
import re
from typing import Any

from jax_nbhelp.catalog import _entry, _scopes, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, corrected
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match
from jax_nbhelp.fix.fix_builders import rewrite_fix
from jax_nbhelp.rewrite.errors import CannotRewrite

CODE = "JNH527"
TITLE = "A custom rule's tangent of another shape than JAX expects"
MESSAGE = "Custom JVP rule must produce primal and tangent outputs with corresponding shapes"
BWD = "the bwd rule produced an output of"
_CUSTOM_JVP = "jax._src.custom_derivatives.custom_jvp"
_CUSTOM_VJP = "jax._src.custom_derivatives.custom_vjp"
_AVAL = r"\w+\[[\d,\s]*\]"
_TYPES = re.compile(rf"Expected (?P<expected>{_AVAL}) \(tangent type of "
                    rf"(?P<primal>{_AVAL})\) but got (?P<got>{_AVAL})")
_BWD_TYPES = re.compile(rf"at output\[(?P<index>\d+)\] the bwd rule produced an output of "
                        rf"(?:shape/dtype|type) (?P<got>{_AVAL}) (?:corresponding to an input "
                        rf"of (?:shape/dtype|type)|which doesn't match expected type) "
                        rf"(?P<expected>{_AVAL})")

_FIRST = ("@jax.custom_jvp\ndef first(v):\n    return v[0] * 2.0\n\n"
          "@first.defjvp\ndef first_jvp(primals, tangents):\n"
          "    (v,), (v_dot,) = primals, tangents\n"
          "    return first(v), 2.0 * v_dot[:1]")
_WIDE = ("@jax.custom_jvp\ndef total(v):\n    return jnp.sum(v)\n\n"
         "@total.defjvp\ndef total_jvp(primals, tangents):\n"
         "    (v,), (v_dot,) = primals, tangents\n"
         "    return total(v), v_dot")

_SCALE = ("@jax.custom_vjp\ndef scale(x):\n    return 3.0 * x\n\n"
          "def scale_fwd(x):\n    return 3.0 * x, None\n\n"
          "def scale_bwd(_, g):\n    return (3.0 * jnp.atleast_1d(g),)\n\n"
          "scale.defvjp(scale_fwd, scale_bwd)")

EXAMPLES = (
    corrected(JAX_IMPORTS, _FIRST, _FIRST.replace("2.0 * v_dot[:1]",
                                                  "jnp.reshape(2.0 * v_dot[:1], ())"),
              "g = jax.grad(first)(jnp.array([1.0, 5.0]))",
              "Reshape the tangent to ()", "g.tolist() == [2.0, 0.0]"),
    # A tangent of three values for a one-value output: the rule's math, explained.
    corrected(JAX_IMPORTS, _WIDE, _WIDE.replace("return total(v), v_dot",
                                                "return total(v), jnp.sum(v_dot)"),
              "g = jax.grad(total)(jnp.ones(3))", NO_FIX, "g.tolist() == [1.0, 1.0, 1.0]"),
    # The backward rule's cotangent: [1] for a scalar argument.
    corrected(JAX_IMPORTS, _SCALE, _SCALE.replace("(3.0 * jnp.atleast_1d(g),)",
                                                  "(jnp.reshape(3.0 * jnp.atleast_1d(g), ()),)"),
              "g = jax.grad(scale)(2.0)", "Reshape the tangent to ()", "float(g) == 3.0"),
)

WHY = _entry.prose("""
A custom_jvp rule returns the function's output and its tangent: how the output moves when
the inputs move along their tangents. The tangent must have the output's shape and dtype,
element for element, because JAX adds it to other tangents of that output.
""")

MATCH = Match(MESSAGE, also=(BWD,))


def _dims(aval: str) -> tuple[str, tuple[int, ...]]:
    """``("float32", (3, 1))`` for ``float32[3,1]``."""
    dtype, _, rest = aval.partition("[")
    inside = rest.rstrip("]").strip()
    return dtype, tuple(int(d) for d in inside.split(",") if d.strip()) if inside else ()


def _rule(ctx: ErrorContext, kind: str, attribute: str) -> tuple[str, Any] | None:
    """The custom function whose rule failed, and the rule (its ``attribute``: ``jvp``,
    ``bwd``): the one the user's line called, or the notebook's only one with a rule."""
    call = ctx.user_call
    function = call.function if call is not None else None
    rule = getattr(function, attribute, None) if function is not None else None
    if call is not None and rule is not None \
            and f"{type(function).__module__}.{type(function).__qualname__}" == kind:
        return call.spelled, rule
    found = [(name, getattr(value, attribute)) for name, value in ctx.globals_of_type(kind)
             if getattr(value, attribute, None) is not None]
    return found[0] if len(found) == 1 else None


def _tangent(where: Location, index: int, length: int | None
             ) -> tuple[ast.Return, ast.expr, str] | None:
    """The rule's one return of a tuple (of ``length``, where given), its element
    ``index``, and the source's code."""
    parsed = _tracing.parse(where.source)
    if parsed is None:
        return None
    tree, code = parsed
    rule = next((node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
                 and node.lineno <= where.lineno <= (node.end_lineno or 0)), None)
    if rule is None:
        return None
    returns = [node for node in _scopes.own_nodes(rule) if isinstance(node, ast.Return)]
    value = returns[0].value if len(returns) == 1 else None
    if not isinstance(value, ast.Tuple) or index >= len(value.elts) or (
            length is not None and len(value.elts) != length):
        return None
    return returns[0], value.elts[index], code


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    backward = BWD in link.message
    found = (_rule(ctx, _CUSTOM_VJP, "bwd") if backward else _rule(ctx, _CUSTOM_JVP, "jvp"))
    name, rule = found if found is not None else (None, None)
    where = _entry.def_location(ctx, rule) if rule is not None else None
    types = (_BWD_TYPES if backward else _TYPES).search(link.message)
    index = int(types["index"]) if backward and types is not None else 1
    if types is None:
        shown = "tangents whose shapes or dtypes differ from what JAX expects"
    elif backward:
        shown = (f"a cotangent {types['got']} for argument {index}, of type "
                 f"{types['expected']}, whose cotangent must be {types['expected']}")
    else:
        shown = (f"a tangent {types['got']} for an output {types['primal']}, whose tangent "
                 f"must be {types['expected']}")
    rule_name = getattr(rule, "__name__", "its rule")
    which = "backward rule" if backward else "custom_jvp rule"
    subject = (f"The {which} of {name} ({rule_name})" if name is not None
               else f"A {which}")
    explanation = f"{subject} returns {shown}."
    fixes: list[Fix] = []
    notes: list[str] = []
    returned = (_tangent(where, index, None if backward else 2) if where is not None
                else None)
    if types is not None and where is not None and returned is not None:
        (want_type, want), (got_type, got) = _dims(types["expected"]), _dims(types["got"])
        statement, tangent, code = returned
        if want_type == got_type and math.prod(want) == math.prod(got):
            fixes.append(_reshape_fix(ctx, where, statement, tangent, code, want, got))
            explanation += " It holds as many values as the output, in another shape."
    if not fixes:
        notes.append("Return a tangent with the output's shape and dtype: for an output "
                     "computed from one element (`q[0]`), the tangent of that element.")
    return _entry.diagnosis(ctx, __name__, explanation,
                            location=where or ctx.deepest_user_location(),
                            call_site=ctx.failing_cell(), fixes=fixes, notes=notes,
                            error=link.summary.splitlines()[0])


def _shape_text(shape: tuple[int, ...]) -> str:
    return "()" if not shape else f"({shape[0]},)" if len(shape) == 1 else str(shape)


def _reshape_fix(ctx: ErrorContext, where: Location, statement: ast.Return,
                 tangent: ast.expr, code: str, want: tuple[int, ...],
                 got: tuple[int, ...]) -> Fix:
    jnp = ctx.alias("jax.numpy") or "jnp"
    before = _tracing.segment(code, tangent)
    after = f"{jnp}.reshape({before}, {_shape_text(want)})"
    line = tangent.lineno

    def transform(source: str) -> str:
        lines = source.split("\n")
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        if tangent.lineno != tangent.end_lineno or text.count(before) != 1:
            raise CannotRewrite(f"the tangent on line {line} is no longer as it was")
        lines[line - 1] = text.replace(before, after, 1)
        return "\n".join(lines)

    size = math.prod(want)
    return rewrite_fix(
        ctx, where, transform, label=f"Reshape the tangent to {_shape_text(want)}",
        summary=(f"Return `{after}` as the tangent on line {line}; then re-run."),
        safety=(f"Same values: the tangent holds {size} value{'s' if size != 1 else ''}, as "
                f"the output does, reshaped from {list(got)} to {list(want)}."),
        safe=True)
