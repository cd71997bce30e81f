"""``jax.grad`` at an integer input: ``jax.grad(f)(3)``, or an int array, or a pytree of
parameters with an integer leaf (``TypeError: grad requires real- or complex-valued inputs
(input dtype that is a sub-dtype of np.inexact), but got int32.``).

A derivative needs a real-valued input. Where the call passes an integer literal or an int
array for a differentiated argument, passing it as a float (``3.0``,
``x.astype(jnp.float32)``) asks for the derivative at the same point. Where the
differentiated argument is a dict, list or tuple of parameters with integer leaves (an index
table, a step count) beside float ones, the fix is the one JAX's message names,
``allow_int=True``: every float leaf gets its gradient, each integer leaf a float0 one.
Where ``argnums`` points at an integer argument while another argument is a float, the
explanation names both: the numbers suggest the other one was meant. The same holds for
``jax.jacrev``, ``jax.jacfwd`` and ``jax.hessian`` (whose forward pass says "requires
real-valued inputs").

Reports: jax-ml/jax#2663 (``grad(jnp.tanh)(2)`` with a Python int),
google-deepmind/dm-haiku#513 (an int32 counter in BatchNorm's state among the
differentiated parameters), deepmodeling/DMFF#82 (``argnums=-1`` landing on an integer
``pairs`` array).
"""

from __future__ import annotations

import ast

from jax_nbhelp.catalog import _entry, _jax_names, _shapes, _static_site, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.line_values import Value
from jax_nbhelp.diagnosis.match import Match
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.diagnosis.safe_eval import Evaluator
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH513"
TITLE = "jax.grad at an integer input"
MESSAGE = "requires real- or complex-valued inputs"

_SQUARE = "def square(x):\n    return x ** 2"
_ENERGY = "def energy(x):\n    return jnp.sum(x ** 2)\n\npositions = jnp.arange(3)"

EXAMPLES = (
    corrected_cell((JAX_IMPORTS, _SQUARE), "slope = jax.grad(square)(3)",
                   "slope = jax.grad(square)(3.0)", "Pass 3.0", "float(slope) == 6.0"),
    corrected_cell((JAX_IMPORTS, _ENERGY), "force = jax.grad(energy)(positions)",
                   "force = jax.grad(energy)(positions.astype(jnp.float32))",
                   "Pass positions as float32", "force.tolist() == [0.0, 2.0, 4.0]"),
    # a function made by grad in an earlier cell (under vmap): its argnums are read there
    corrected_cell((JAX_IMPORTS, _SQUARE,
                    "slope = jax.vmap(jax.grad(square))\ngrid = jnp.arange(3)"),
                   "s = slope(grid)", "s = slope(grid.astype(jnp.float32))",
                   "Pass grid as float32", "s.tolist() == [0.0, 2.0, 4.0]"),
    # a call's result is not read: JAX's message says its dtype
    corrected_cell((JAX_IMPORTS, _ENERGY), "force = jax.grad(energy)(jnp.arange(3))",
                   "force = jax.grad(energy)(jnp.arange(3).astype(jnp.float32))",
                   "Pass jnp.arange(3) as float32", "force.tolist() == [0.0, 2.0, 4.0]"),
    # jax.hessian (forward over reverse) says "requires real-valued inputs"
    corrected_cell((JAX_IMPORTS, _ENERGY), "curv = jax.hessian(energy)(positions)",
                   "curv = jax.hessian(energy)(positions.astype(jnp.float32))",
                   "Pass positions as float32", "curv.tolist()[1] == [0.0, 2.0, 0.0]"),
    # a name holding a Python int has no astype: Python's float of it
    corrected_cell((JAX_IMPORTS, _SQUARE + "\nx0 = 3"), "slope = jax.grad(square)(x0)",
                   "slope = jax.grad(square)(float(x0))", "Pass float(x0)",
                   "float(slope) == 6.0"),
    # parameters holding an index table beside the weights: allow_int, as JAX's message says
    corrected_cell((JAX_IMPORTS, "params = {'w': jnp.array([1.0, 2.0]),\n"
                                 "          'idx': jnp.array([1, 0])}\ndef loss(p):\n"
                                 "    return jnp.sum(p['w'][p['idx']] ** 2)"),
                   "g = jax.grad(loss)(params)", "g = jax.grad(loss, allow_int=True)(params)",
                   "Pass allow_int=True", "g['w'].tolist() == [2.0, 4.0]"),
)

WHY = _entry.prose("""
A derivative says how the output changes when the input moves by a tiny amount, and an
integer cannot move by a tiny amount: jax.grad needs float (or complex) inputs. Pass the
same numbers as floats. Integers that are not meant to be differentiated (counts, indices, a
step counter) belong in another argument than the one grad differentiates (argnums), or in
the pytree's static part.
""")


def _argnums(call: ast.Call) -> tuple[int, ...] | None:
    """What a grad(...) call differentiates: its literal argnums (default 0)."""
    for keyword in call.keywords:
        if keyword.arg == "argnums":
            try:
                value = ast.literal_eval(keyword.value)
            except ValueError:
                return None
            return (value,) if isinstance(value, int) else tuple(value)
    if len(call.args) > 1:
        return None
    return (0,)


def _call(ctx: ErrorContext, location: Location
          ) -> tuple[ast.Call, tuple[int, ...] | None] | None:
    """The call on the line that calls a grad-transformed function, and its argnums (None:
    unknown). ``jax.grad(f)(x)`` shows them; so does ``slope(x)`` where an earlier cell
    made ``slope = jax.vmap(jax.grad(f))`` (vmap and jit keep the positions)."""
    for node, grad in _tracing.grad_calls(location, _DIFFERENTIATORS):
        return node, _argnums(grad)
    parsed = _tracing.parse(location.source)
    calls = [node for node in ast.walk(parsed[0]) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Name)
             and node.lineno <= location.lineno <= (node.end_lineno or 0)] if parsed else []
    for node in calls:
        assert isinstance(node.func, ast.Name)
        made = _static_site.latest_assignment(ctx, node.func.id)
        value = made[1] if made is not None else None
        while isinstance(value, ast.Call) and value.args and (
                dotted(value.func) or "").rsplit(".", 1)[-1] in ("vmap", "jit"):
            value = value.args[0]
        if isinstance(value, ast.Call) and (dotted(value.func) or "").rsplit(".", 1)[-1] \
                in _DIFFERENTIATORS:
            return node, _argnums(value)
    return None


def _is_int(arg: ast.expr, values: dict[str, Value], got: str, only: bool) -> Value | None:
    """The argument's value when it is an integer (a literal, or an int array or scalar).
    A call's result (``jnp.arange(3)``) is not read: it is taken as the ``got`` of JAX's
    message when it is the ``only`` argument grad differentiates."""
    if isinstance(arg, ast.Constant) and type(arg.value) is int:
        return Value(ast.unparse(arg), "python", "Python int", (), "int32", True)
    value = values.get(ast.unparse(arg))
    if value is not None and ((value.dtype or "").startswith(("int", "uint"))
                              or value.summary == "Python int"):
        return value
    if value is None and only and isinstance(arg, ast.Call) \
            and got.startswith(("int", "uint")) and got.isidentifier():
        return Value(ast.unparse(arg), "array", f"an array of {got}", None, got)
    return None


# jacfwd (and hessian, made of it) says "requires real-valued inputs"
MATCH = Match(MESSAGE, "TypeError", also=("requires real-valued inputs",))
_DIFFERENTIATORS = (*_tracing.GRADS, "jacrev", "jacfwd", "hessian", "jacobian")


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    location = ctx.call_site()
    found = _call(ctx, location) if location is not None else None
    subject = _tracing.quoted_line(location, "Your code")
    got = link.message.split("but got ", 1)[-1].split(".", 1)[0]
    notes: list[str] = []
    fixes: list[Fix] = []
    explanation = f"{subject} asks jax.grad for a derivative at an integer input ({got})."
    if found is not None and location is not None:
        call, argnums = found
        values = {v.text: v for v in ctx.values_at(location)}
        positional = [a for a in call.args if not isinstance(a, ast.Starred)]
        differentiated = [(i, positional[i]) for i in (argnums or ())
                          if -len(positional) <= i < len(positional)]
        ints = [(i % len(positional), arg, value) for i, arg in differentiated
                if (value := _is_int(arg, values, got, len(differentiated) == 1)) is not None]
        if ints:
            index, arg, value = ints[0]
            shown = f"{value.summary}" if value.summary != "Python int" else "a Python int"
            explanation = (f"{subject} asks jax.grad for a derivative with respect to "
                           f"`{ast.unparse(arg)}`, which is {shown}: derivatives need float "
                           "inputs.")
            floats = [ast.unparse(a) for i, a in enumerate(positional)
                      if i != index and (v := values.get(ast.unparse(a))) is not None
                      and (v.dtype or "").startswith(("float", "bfloat", "complex"))]
            if argnums is not None and argnums != (0,) and floats:
                notes.append(f"argnums={argnums[0] if len(argnums) == 1 else argnums} "
                             f"differentiates `{ast.unparse(arg)}`; `{floats[0]}` is the "
                             "float argument. If you meant the derivative with respect to "
                             f"it, set argnums to its position.")
            fixes.append(_fix(ctx, location, index, arg, value))
        elif differentiated:
            allowed = _allow_int_fix(ctx, location, [arg for _, arg in differentiated])
            if allowed is not None:
                explanation = (f"{subject} asks jax.grad for derivatives with respect to "
                               "parameters that hold integer leaves beside float ones: an "
                               "integer has no derivative.")
                fixes.append(allowed)
    if not fixes:
        notes.append("If an integer leaf sits among parameters you differentiate (a step "
                     "counter, an index), pass it as a separate argument that grad does not "
                     "differentiate; jax.grad(..., allow_int=True) gives it a float0 "
                     "gradient instead.")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=fixes, notes=notes,
                            error=link.summary.split(" If you want", 1)[0])


def _fix(ctx: ErrorContext, location: Location, index: int, arg: ast.expr,
         value: Value) -> Fix:
    jnp = ctx.alias("jax.numpy") or "jnp"
    passed = ast.unparse(arg)
    number = arg.value if isinstance(arg, ast.Constant) and type(arg.value) is int else None
    # a name holding a Python int has no astype: Python's float of it
    scalar = number is None and value.summary == "Python int" \
        and _jax_names.spell(ctx, "builtins", "float") == "float"
    label = (f"Pass {number}.0" if number is not None else f"Pass float({passed})" if scalar
             else f"Pass {passed} as float32")
    dtype = "float" if scalar else f"{jnp}.float32"

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.wrap_in_call import cast_passed

        return cast_passed(source, location.lineno, index, passed, dtype)

    return rewrite_fix(
        ctx, location, transform, label=label,
        summary=(f"Pass {passed} as a float on line {location.lineno}, so grad differentiates "
                 "at the same point; then re-run."),
        safety=(f"Same point: {number}.0 is {passed} as a float." if number is not None else
                f"Same point: float({passed}) is the same whole number as a float."
                if scalar else
                f"Same point: {passed}'s integers as float32 (exact up to 2**24); code that "
                "uses them as integers (indexing, //) sees floats."),
        safe=True)


def _leaf_kinds(value: object) -> set[str] | None:
    """The kinds of number (NumPy's letters) of the leaves of a dict, list or tuple of
    Python numbers and NumPy or JAX arrays; None for anything else."""
    leaves = _shapes.builtin_leaves(value)
    if leaves is None:
        return None
    kinds: set[str] = set()
    for item in leaves:
        if type(item) in (bool, int, float):
            kinds.add({bool: "b", int: "i", float: "f"}[type(item)])
        elif (kind := getattr(getattr(item, "dtype", None), "kind", None)) in ("b", "i", "u",
                                                                              "f", "c"):
            kinds.add("i" if kind == "u" else kind)
        else:
            return None
    return kinds


def _allow_int_fix(ctx: ErrorContext, location: Location, args: list[ast.expr]) -> Fix | None:
    """A differentiated dict, list or tuple of parameters with integer leaves (an index
    table, a step count) beside float ones: ``allow_int=True``, as JAX's message says,
    gives each integer leaf a float0 gradient and every float leaf its gradient."""
    frame = ctx.live_frame(location)
    grads = [grad for _, grad in _tracing.grad_calls(location, _DIFFERENTIATORS)]
    parsed = _tracing.parse(location.source)
    if frame is None or len(grads) != 1 or parsed is None or any(
            k.arg == "allow_int" for k in grads[0].keywords):
        return None
    evaluate = Evaluator(frame)
    read = [_leaf_kinds(evaluate(arg)) for arg in args]
    kinds: set[str] = set()
    for found in read:
        kinds |= found or set()
    if not any(type(evaluate(arg)) in (dict, list, tuple) for arg in args) \
            or any(k is None for k in read) or not {"i", "b"} & kinds or "f" not in kinds:
        return None
    grad = grads[0]
    before = _tracing.segment(parsed[1], grad)
    if not before.endswith(")"):
        return None
    after = f"{before[:-1].rstrip().rstrip(',')}, allow_int=True)"
    return rewrite_fix(
        ctx, location, _tracing.replacing(grad, before, after), label="Pass allow_int=True",
        summary=(f"Write `{after}` on line {location.lineno}, as JAX's message says: each "
                 "integer leaf gets a float0 gradient (it has none), every float leaf its "
                 "gradient; then re-run."),
        safety=("Same gradients for every float leaf. Each integer leaf's gradient is a float0 "
                "array, which arithmetic refuses: an update step leaves those leaves as they "
                "are."),
        safe=True)
