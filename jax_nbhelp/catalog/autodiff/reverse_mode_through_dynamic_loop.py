"""``jax.grad`` (reverse mode) through a ``lax.while_loop``, or a ``lax.fori_loop`` whose
bounds are traced (``ValueError: Reverse-mode differentiation does not work for
lax.while_loop or lax.fori_loop with dynamic start/stop values.``).

Reverse mode stores every step to run it backwards, and a loop whose length is decided
while it runs has no number of steps to store. The ways out depend on what the loop is, and
the explanation names them: bounds known in Python (``fori_loop`` then lowers to a ``scan``),
a ``scan`` over a fixed maximum number of steps, or forward mode (``jax.jacfwd``), which
does go through while loops.

Fixes, each keeping every value:

- A ``fori_loop`` bound that is a parameter of the jitted function, passed a Python int by
  the calling line (``jax.jit(jax.grad(power))(2.0, 3)``): the parameter is made static, so
  the bound is a Python int and the loop a scan (the machinery of JNH303's fix).
- Otherwise, where a ``jax.grad(...)`` written on a line of the traceback is what
  differentiates: ``jax.jacfwd`` in its place. grad takes a function of one output number,
  and for such a function forward mode computes the same derivative, in the input's shape;
  it runs one forward pass per input element, which the safety line says. Not for
  ``value_and_grad`` (forward mode has no such function) nor for options jacfwd lacks.

Reports: google-deepmind/mujoco#1207 (``jax.grad`` through ``mjx.step``'s solver loop),
wilson-labs/cola#120 (through a Lanczos eigensolver), dynamiqs/dynamiqs#917 (a loop with
dynamic bounds in ``wigner``), tensorflow/tensorflow#62828 (TFP-on-JAX ``gram_schmidt``).
"""

from __future__ import annotations

import ast

from jax_nbhelp.catalog import _entry, _scopes, _static_fix, _tracing
from jax_nbhelp.catalog._example import LAX_IMPORTS, NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH523"
TITLE = "Reverse-mode differentiation through a loop of unknown length"
MESSAGE = "Reverse-mode differentiation does not work for lax.while_loop"

_GROW = ("def grow(rate):\n"
         "    return lax.while_loop(lambda v: v < 10.0, lambda v: v * rate, 1.0)")

_POWER = "def power(x, n):\n    return lax.fori_loop(0, n, lambda i, v: v * x, 1.0)"

EXAMPLES = (
    # a while loop: forward mode goes through it, and gives grad's number
    corrected_cell((LAX_IMPORTS, _GROW), "slope = jax.grad(grow)(2.0)",
                   "slope = jax.jacfwd(grow)(2.0)", "Use jax.jacfwd", "float(slope) == 32.0"),
    # a fori_loop bounded by a jitted parameter the call passes a Python int for
    corrected_cell((LAX_IMPORTS, _POWER), "g = jax.jit(jax.grad(power))(2.0, 3)",
                   'g = jax.jit(jax.grad(power), static_argnames=("n",))(2.0, 3)',
                   "Make n static", "float(g) == 12.0"),
    # value_and_grad: forward mode has no such function, so the card explains
    corrected_cell((LAX_IMPORTS, _GROW), "v, slope = jax.value_and_grad(grow)(2.0)",
                   "v, slope = grow(2.0), jax.jacfwd(grow)(2.0)", NO_FIX,
                   "float(slope) == 32.0 and float(v) == 16.0"),
)

WHY = _entry.prose("""
Reverse mode (jax.grad, vjp, jacrev) runs the computation forward, keeps what each step
needs, then runs the steps backwards. A while_loop (or a fori_loop whose bounds are traced)
decides its number of steps while it runs, so there is no fixed list of steps to keep.
Forward mode (jax.jvp, jacfwd) carries derivatives along with the values and goes through
such loops; scan, and fori_loop with Python bounds, have a fixed length and work with
reverse mode.
""")


MATCH = Match(MESSAGE, "ValueError")


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    location = ctx.deepest_user_location()
    call_site = ctx.call_site()
    subject = _tracing.quoted_line(location, "A loop in your code")
    explanation = (f"{subject} is a loop whose number of steps is decided while it runs, and "
                   f"reverse-mode differentiation (jax.grad) needs a fixed number of steps.")
    notes = [
        "If the number of steps is known before the loop runs, pass it as a Python int: "
        "`lax.fori_loop(0, n, body, init)` with Python bounds becomes a scan, which grad "
        "differentiates.",
        "If only a maximum is known, run a `lax.scan` for that many steps and stop updating "
        "once done (`jnp.where(done, carry, step(carry))`).",
        "For derivatives with respect to a few inputs, forward mode goes through while "
        "loops: jax.jacfwd(f)(x) (or jax.jvp) instead of jax.grad.",
    ]
    fix = _static_bound_fix(ctx, location) if location is not None else None
    if fix is None or fix.unavailable is not None:
        fix = _forward_mode_fix(ctx) or fix
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=call_site, notes=notes,
                            fixes=(fix,) if fix is not None else (),
                            error=link.summary.split(" Try using", 1)[0])


def _static_bound_fix(ctx: ErrorContext, location: Location) -> Fix | None:
    """static_argnames for the jitted function's parameters the fori_loop's bounds read,
    where the calling line passes Python ints for them. The loop's frame is gone by the
    time reverse mode fails: its parameters are read from the def that holds the line."""
    parsed = _tracing.parse(location.source)
    if parsed is None:
        return None
    loops = [c for c in ast.walk(parsed[0]) if isinstance(c, ast.Call)
             and (dotted(c.func) or "").rpartition(".")[2] == "fori_loop"
             and c.lineno <= location.lineno <= (c.end_lineno or c.lineno) and len(c.args) >= 2]
    function = _scopes.enclosing_function(parsed[0], location.lineno)
    if len(loops) != 1 or not isinstance(function, ast.FunctionDef):
        return None
    parameters = _scopes.scope_of(function).parameters
    read = sorted({n.id for bound in loops[0].args[:2] for n in ast.walk(bound)
                   if isinstance(n, ast.Name)})
    if not read or any(name not in parameters or _scopes.stores(function, name)
                       for name in read):
        return None
    first = min([function.lineno, *(d.lineno for d in function.decorator_list)])
    origin = _tracing.TraceOrigin(function.name, location.filename, first, "jit", tuple(read))
    frames = ctx.top.user_frames  # the def's frame is gone: its caller is the deepest left
    if not frames or frames[-1].location == location or location.cell is None:
        return None
    call = _tracing.jit_call(ctx, origin, ctx.cell(location.cell, first), frames[-1])
    return _static_fix.static_argnames_fix(ctx, call) if _static_fix.can_be_static(call) \
        else None


_JACFWD_TAKES = frozenset({"argnums", "has_aux", "holomorphic"})


def _forward_mode_fix(ctx: ErrorContext) -> Fix | None:
    """``jax.jacfwd`` for the one ``jax.grad(...)`` written on the traceback's user lines."""
    jax = ctx.alias("jax")
    found = []
    for frame in ctx.top.user_frames:
        place = frame.location
        parsed = _tracing.parse(place.source) if place is not None else None
        if place is None or parsed is None:
            continue
        for node in ast.walk(parsed[0]):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "grad" and dotted(node.func.value) == jax \
                    and node.lineno == place.lineno == node.end_lineno \
                    and {k.arg for k in node.keywords} <= _JACFWD_TAKES:
                found.append((place, node.func))
    if jax is None or len({(p.filename, p.lineno, n.col_offset) for p, n in found}) != 1:
        return None
    place, func = found[0]
    before = _tracing.segment(place.source or "", func, strip=False)
    return rewrite_fix(
        ctx, place, _tracing.replacing(func, before, f"{jax}.jacfwd"),
        label="Use jax.jacfwd",
        summary=(f"Write `{jax}.jacfwd` for `{before}` on {place.label}: forward mode "
                 "carries derivatives along with the values, through loops of any length; "
                 "then re-run."),
        safety=("Same values: grad differentiates a function of one output number, and for "
                "such a function forward mode computes the same derivative, in the shape of "
                "the input. It runs one forward pass per input element: slower where there "
                "are many."),
        safe=True)
