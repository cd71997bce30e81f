"""A jitted function called with an argument that is not an array: a string, ``None``, a
function, an object (``TypeError: Error interpreting argument to <function forward at
0x...> as an abstract array. The problematic value is of type <class 'str'> and was passed
to the function at path mode.``), or a pytree with such a leaf (``cfg['name']``).

jit traces arrays; a setting that chooses what the function does must be static. Where the
value is a whole parameter, hashable (a string, a number, None, or a function: a Python
function or a jitted one, which hash by identity), and the function is jitted in a cell (its
decorator or ``g = jax.jit(f)``), the fix adds it to ``static_argnames``: jit then compiles
once per value and hands the value to the code as it is. A NumPy function (``np.cos``) gets
no fix: static, it would be handed tracers it cannot take. A leaf inside a pytree, a
NamedTuple's string field say, is explained (a dataclass registered with that field in
``meta_fields``).

Reports: jax-ml/jax#5228 (``jit`` called with a NumPy array of strings),
BirkhoffG/jax-dataloader#2 (a DataLoader object passed to a jitted step),
pyro-ppl/numpyro#1078 (``None`` passed through a transformed function), jax-ml/jax#953 and
jax-ml/jax#4416 (a function passed to a jitted helper). JAX's docs teach the
pytree case in "Custom pytrees".
"""

from __future__ import annotations

from jax_nbhelp.catalog import _entry, _jit_arguments, _static_fix, _tracing
from jax_nbhelp.catalog._example import NO_FIX, Example, corrected, made_static
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext

CODE = "JNH552"
TITLE = "A jitted function called with an argument that is not an array"
TRIGGERS = (_jit_arguments.JIT,)

_ACTIVATE = ("@jax.jit\ndef activate(x, kind):\n"
             "    return jnp.tanh(x) if kind == 'tanh' else jnp.maximum(x, 0.0)")
_POINT = ("from typing import NamedTuple\n\nclass Point(NamedTuple):\n    label: str\n"
          "    x: float\n    y: float\n\n@jax.jit\ndef norm(p):\n"
          "    return jnp.sqrt(p.x ** 2 + p.y ** 2)")
_POINT_FIXED = ("from dataclasses import dataclass\n\n@dataclass\nclass Point:\n"
                "    label: str\n    x: float\n    y: float\n\n"
                "jax.tree_util.register_dataclass(Point, data_fields=['x', 'y'], "
                "meta_fields=['label'])\n\n@jax.jit\ndef norm(p):\n"
                "    return jnp.sqrt(p.x ** 2 + p.y ** 2)")

_TWICE = "@jax.jit\ndef twice(step, x):\n    return step(step(x))"
_PENALTY = ("def penalty(w, norm):\n"
            "    return jnp.sum(w ** 2) if norm == 'l2' else jnp.sum(jnp.abs(w))")
_GRADIENT = "g = jax.jit(jax.grad(penalty))(jnp.array([1.0, -2.0]), 'l1')"

EXAMPLES = (
    made_static(_ACTIVATE, "y = activate(jnp.array([-1.0, 2.0]), 'relu')", "kind",
                "y.tolist() == [0.0, 2.0]"),
    # a function is a setting too: jit compiles twice once per function passed
    made_static(_TWICE, "y = twice(jnp.cos, 0.5)", "step", "abs(float(y) - 0.6390125) < 1e-6"),
    # jit of grad: grad keeps the function's signature, so jit finds the setting by name
    Example(setup=("import jax, jax.numpy as jnp", _PENALTY), failing=_GRADIENT,
            fix="Make norm static", check="g.tolist() == [1.0, -1.0]",
            fixed=("import jax, jax.numpy as jnp", _PENALTY, _GRADIENT.replace(
                "jax.grad(penalty))", "jax.grad(penalty), static_argnames=('norm',))"))),
    corrected("import jax, jax.numpy as jnp", _POINT, _POINT_FIXED,
              "r = norm(Point('a', 3.0, 4.0))", NO_FIX, "float(r) == 5.0"),
)

WHY = _entry.prose("""
jax.jit traces its arguments: it runs your function once with tracers standing for arrays,
and compiles what it did. A string, None or another Python object is not an array, so it
cannot be traced. A value that chooses what the function does is a setting: mark it static
(static_argnames), and jit compiles the function once per value and hands the value to your
code as it is.
""")

# what jit can take as static: hashable Python settings, and functions (hashed by identity)
_HASHABLE = frozenset({"str", "bool", "int", "NoneType", "bytes", "function", "PjitFunction"})


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    bad = _jit_arguments.bad_argument(ctx)
    if bad is None or not bad.jit or bad.is_method_self or bad.function is None:
        return None
    if (not bad.builtin and not bad.type_name.startswith(("numpy.", "jax"))
            and bad.parameter is not None):
        return None  # an object of a class: JNH542 asks whether it can be a pytree
    function = bad.function.rsplit(".", 1)[-1]
    location = ctx.call_site()
    subject = _tracing.quoted_line(location, "Your code")
    what = {"str": "a string", "NoneType": "None", "function": "a function",
            "PjitFunction": "a jitted function", "ufunc": "a NumPy function"}.get(
        bad.short_type, f"a {bad.short_type}")
    explanation = (f"{subject} passes {what} to the jitted {function} as "
                   f"{bad.path}, and jit traces only arrays.")
    fixes: list[Fix] = []
    notes: list[str] = []
    if bad.parameter is not None and bad.short_type in _HASHABLE and function.isidentifier() \
            and location is not None:
        fix = _static(ctx, function, bad.parameter, location)
        if fix is not None:
            fixes.append(fix)
    if not fixes:
        notes.append(f"Mark {bad.path} static if it is a setting (static_argnames, or for a "
                     "field of your own class, a dataclass registered with that field in "
                     "meta_fields); pass arrays for values the function computes with.")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=fixes, notes=notes,
                            error=bad.link.summary.splitlines()[0])


def _static(ctx: ErrorContext, function: str, parameter: str,
            caller: Location) -> Fix | None:
    """static_argnames for ``parameter`` where the notebook jits ``function``."""
    import ast

    for number in sorted(ctx.cell_sources, reverse=True):
        parsed = _tracing.parse(ctx.cell_sources[number])
        if parsed is None:
            continue
        node = next((n for n in ast.walk(parsed[0]) if isinstance(n, ast.FunctionDef)
                     and n.name == function), None)
        if node is None:
            continue
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        definition = ctx.cell(number, first)
        origin = _tracing.TraceOrigin(function, None, first, "jit", (parameter,))
        argument = _tracing.PassedArgument(parameter, None, "python")
        callee = _tracing.callee_on_line(ctx, caller, function) or function
        call = _tracing.JitCall(origin, definition, caller, callee, (argument,), True)
        return _static_fix.static_argnames_fix(ctx, call)
    return None
