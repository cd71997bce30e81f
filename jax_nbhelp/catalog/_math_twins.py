"""Python's ``math`` functions on a traced value, rewritten as their jax.numpy twins.

``math.log(p)`` converts ``p`` to a Python float first, which a tracer cannot give
(``ConcretizationTypeError``, "The problem arose with the `float` function"). Each function
below computes the same mathematical function in jax.numpy, on arrays and tracers alike;
XLA's implementation may round the last bits otherwise than the C library, so the fix is
safe up to float rounding (``Fix.rounding``). Functions whose result differs in kind are
left out: ``math.floor`` and ``math.ceil`` return ints, ``math.log(x, base)`` takes a base
that ``jnp.log`` does not, ``math.isclose`` and ``math.fsum`` have no twin.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace

from jax_nbhelp.catalog import _tracing
from jax_nbhelp.core.model import Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.fix.fix_builders import rewrite_fix

# math's name -> (jax.numpy's name, how many positional arguments)
TWINS: dict[str, tuple[str, int]] = {
    **{name: (name, 1) for name in (
        "exp", "expm1", "log2", "log10", "log1p", "sqrt", "sin", "cos", "tan", "sinh", "cosh",
        "tanh", "cbrt", "exp2", "trunc")},
    "log": ("log", 1), "fabs": ("abs", 1),
    "asin": ("arcsin", 1), "acos": ("arccos", 1), "atan": ("arctan", 1),
    "asinh": ("arcsinh", 1), "acosh": ("arccosh", 1), "atanh": ("arctanh", 1),
    "atan2": ("arctan2", 2), "hypot": ("hypot", 2), "copysign": ("copysign", 2),
    "pow": ("power", 2),
}


@dataclass(frozen=True)
class MathCall:
    node: ast.Call
    name: str  # as math spells it
    twin: str  # as jax.numpy spells it


def calls(ctx: ErrorContext, location: Location | None) -> list[MathCall]:
    """The ``math.<function>(...)`` calls on the line with a jax.numpy twin, as the user
    spells the module (``import math as m``); empty when any math call there has none."""
    module = ctx.alias("math")
    parsed = _tracing.parse(location.source) if location is not None else None
    if module is None or parsed is None or location is None:
        return []
    tree, _ = parsed
    found: list[MathCall] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == module
                and node.lineno == location.lineno == node.end_lineno):
            continue
        twin = TWINS.get(node.func.attr)
        if twin is None or len(node.args) != twin[1] or node.keywords \
                or any(isinstance(arg, ast.Starred) for arg in node.args):
            return []
        found.append(MathCall(node, node.func.attr, twin[0]))
    return found


def math_fix(ctx: ErrorContext, location: Location | None) -> Fix | None:
    """``math.log(p)`` as ``jnp.log(p)`` for every math call on the line (each has a twin),
    safe up to float rounding."""
    found = calls(ctx, location)
    if not found or location is None:
        return None
    module = ctx.alias("math") or "math"
    jnp = ctx.alias("jax.numpy")
    if jnp is None:
        return None  # nothing to call: the card's advice says which function to use
    transform = _tracing.replacing_each(
        [(call.node.func, f"{module}.{call.name}", f"{jnp}.{call.twin}") for call in found])
    names = list(dict.fromkeys(f"{jnp}.{call.twin}" for call in found))
    before = list(dict.fromkeys(f"{module}.{call.name}" for call in found))
    fix = rewrite_fix(
        ctx, location, transform, label="Use " + ", ".join(names),
        summary=(f"Call {', '.join(names)} instead of {', '.join(before)} on line "
                 f"{location.lineno}: Python's math needs a float, jax.numpy works on traced "
                 "values."),
        safety=("The same function, computed by XLA instead of Python's math library: the "
                "last bits of a float result can differ."),
        safe=True)
    return replace(fix, rounding=True)
