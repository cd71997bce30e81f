"""A JAX function's result unpacked into another count of names (``ValueError: not enough
values to unpack (expected 3, got 2)`` from ``key, k1, k2 = jax.random.split(key)``; ``too
many values to unpack (expected 2)`` from ``u, s = jnp.linalg.svd(m)``).

Python unpacks the value the call returned, item by item along its first axis (an array)
or its items (a tuple). ``jax.random.split(key)`` makes two keys: its ``num`` defaults to 2,
so three names need ``jax.random.split(key, 3)``. ``jax.value_and_grad(f, has_aux=True)``
returns ``((value, aux), gradient)``: two items, the first a pair, so ``loss, grads, aux =``
fails, where ``(loss, aux), grads =`` binds each. Python raises the error, at the user's
assignment; the value came from a call of one of JAX's functions (or of what ``jax.grad`` or
``jax.value_and_grad`` made), named plainly on the line, so it counts as JAX's
(``provenance``). A jitted or vmapped function's outputs are its author's: silent.

The fixes follow the function's contract: ``split``'s ``num`` set to the number of names
(new keys: the names get ``num`` independent keys, which is what they asked for, not the two
``split(key)`` makes); the names of a ``value_and_grad(..., has_aux=True)`` grouped as it
returns them, where exactly one name says it is the gradient. Another count from another
function is explained: which names the user meant is theirs to say.

Reports: renecotyfanboy/jaxspec#255 (a split into 3 keys read as 4),
blackjax-devs/blackjax#526 (``key, *subkeys = random.split(key, num=k)``: ``num`` sets the
count), patrick-kidger/equinox#512 (``value_and_grad``'s aux nested in the first item, not
third), jax-ml/jax#5776 (``too many values to unpack`` around ``has_aux``).
"""

from __future__ import annotations

import ast
import copy
import re

from jax_nbhelp.catalog import _entry, _jax_names, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.diagnosis.provenance import UNPACKED
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH545"
TITLE = "A JAX function's result unpacked into another count of names"
TRIGGERS = ("values to unpack",)

_LOSS = ("def loss(w, x):\n    pred = x * w\n    return jnp.sum(pred ** 2), pred\n"
         "w = jnp.array([1.0, 2.0])\nx = jnp.array([3.0, 4.0])")

EXAMPLES = (
    # three keys from split's default two
    corrected_cell((JAX_IMPORTS, "key = jax.random.key(0)"),
                   "key, init_key, noise_key = jax.random.split(key)",
                   "key, init_key, noise_key = jax.random.split(key, 3)",
                   "Split into 3 keys", "noise_key.shape == ()"),
    # value_and_grad with an aux output: ((value, aux), gradient)
    corrected_cell((JAX_IMPORTS, _LOSS),
                   "value, grads, pred = jax.value_and_grad(loss, has_aux=True)(w, x)",
                   "(value, pred), grads = jax.value_and_grad(loss, has_aux=True)(w, x)",
                   "Group the names as ((value, aux), grad)",
                   "float(value) == 73.0 and grads.tolist() == [18.0, 64.0]"),
    # svd returns three arrays: which names were meant is the user's to say
    corrected_cell((JAX_IMPORTS, "m = jnp.eye(3)"), "u, s = jnp.linalg.svd(m)",
                   "u, s, vh = jnp.linalg.svd(m)", NO_FIX, "s.tolist() == [1.0, 1.0, 1.0]"),
)

WHY = _entry.prose("""
Python unpacks what a call returned item by item: an array along its first axis, a tuple by
its items, and the count must match the names. jax.random.split(key) makes two keys (num
defaults to 2); jax.value_and_grad(f, has_aux=True) returns ((value, aux), gradient), two
items whose first is a pair; jax.grad(f, has_aux=True) returns (gradient, aux).
""")

# a name that says it holds the gradient: grads, dloss_grad, g, g_w
_GRADIENT = re.compile(r"grad|^g\d*$|^g_", re.IGNORECASE)


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    found = UNPACKED.match(ctx.top.message) if ctx.top.is_a("ValueError") else None
    location = ctx.deepest_user_location()
    if found is None or location is None:
        return None
    statement = _assignment(location)
    if statement is None or not isinstance(statement.value, ast.Call):
        return None
    call = statement.value
    code = _tracing.parse(location.source)
    if code is None:
        return None
    text = code[1]
    names = statement.targets[0].elts  # type: ignore[attr-defined]
    wanted = len(names)
    got = found["got"]
    split = _jax_names.resolve(ctx, dotted(call.func) or "") if dotted(call.func) else None
    made = (_jax_names.resolve(ctx, dotted(call.func.func) or "")
            if isinstance(call.func, ast.Call) and dotted(call.func.func) else None)
    spelled = _tracing.segment(text, call)
    returned = f"{got} items" if got else f"more than {wanted} items"
    fixes: tuple[Fix, ...] = ()
    if split is not None and split is _jax_names.lookup("jax.random", "split") \
            and not any(isinstance(n, ast.Starred) for n in names):
        explanation = (f"`{spelled}`{_entry.at(location)} makes {returned.replace('items', 'keys')}"
                       f" (split's `num` is {_num_text(text, call) or 'its default, 2'}), "
                       f"and the line unpacks them into {wanted} names.")
        fixes = _split_fix(ctx, location, text, call, wanted)
    elif made is not None and made is _jax_names.lookup("jax", "value_and_grad") \
            and _has_aux(call.func) and wanted == 3 and got == "2":
        explanation = (f"`{spelled}`{_entry.at(location)} returns ((value, aux), gradient): "
                       f"two items, the first a pair, and the line unpacks {wanted} names.")
        fixes = _grouped_fix(ctx, location, text, statement)
    else:
        explanation = (f"`{spelled}`{_entry.at(location)} returned {returned}, and the line "
                       f"unpacks them into {wanted} names: which of them were meant is "
                       "yours to say.")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=fixes)


def _assignment(location: Location) -> ast.Assign | None:
    parsed = _tracing.parse(location.source)
    if parsed is None:
        return None
    for node in ast.walk(parsed[0]):
        if isinstance(node, ast.Assign) and node.lineno == location.lineno \
                and len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple | ast.List):
            return node
    return None


def _num_text(code: str, call: ast.Call) -> str | None:
    if len(call.args) >= 2:
        return _tracing.segment(code, call.args[1])
    keyword = next((k for k in call.keywords if k.arg == "num"), None)
    return _tracing.segment(code, keyword.value) if keyword is not None else None


def _has_aux(call: ast.expr) -> bool:
    return isinstance(call, ast.Call) and any(
        k.arg == "has_aux" and isinstance(k.value, ast.Constant) and k.value.value is True
        for k in call.keywords)


def _split_fix(ctx: ErrorContext, location: Location, code: str, call: ast.Call,
               wanted: int) -> tuple[Fix, ...]:
    if not call.args or any(isinstance(a, ast.Starred) for a in call.args):
        return ()
    keyword = next((k for k in call.keywords if k.arg == "num"), None)
    given = call.args[1] if len(call.args) >= 2 else keyword.value if keyword else None
    if given is not None and not (isinstance(given, ast.Constant)
                                  and type(given.value) is int):
        return ()  # a count the line computes (split(key, n_envs)): the user's to change
    if len(call.args) >= 2:
        edit = (call.args[1], _tracing.segment(code, call.args[1]), str(wanted))
    elif keyword is not None:
        edit = (keyword.value, _tracing.segment(code, keyword.value), str(wanted))
    else:
        first = _tracing.segment(code, call.args[0])
        edit = (call.args[0], first, f"{first}, {wanted}")
    after = ast.unparse(_with_count(call, wanted))
    return (rewrite_fix(
        ctx, location, _tracing.replacing(*edit),
        label=f"Split into {wanted} keys",
        summary=(f"Write `{after}` on line {location.lineno}: split makes `num` keys; then "
                 "re-run."),
        safety=(f"New keys: split(key, {wanted}) makes {wanted} independent keys, one per "
                "name, as the line asked; they are not the keys a split into fewer makes."),
        safe=True),)


def _grouped_fix(ctx: ErrorContext, location: Location, code: str,
                 statement: ast.Assign) -> tuple[Fix, ...]:
    target = statement.targets[0]
    names = [_tracing.segment(code, n) for n in target.elts]  # type: ignore[attr-defined]
    gradients = [i for i, name in enumerate(names) if _GRADIENT.search(name)]
    if len(gradients) != 1 or gradients[0] == 0 or target.lineno != target.end_lineno:
        return ()
    others = [name for i, name in enumerate(names) if i != gradients[0]]
    after = f"({others[0]}, {others[1]}), {names[gradients[0]]}"
    before = _tracing.segment(code, target)
    return (rewrite_fix(
        ctx, location, _tracing.replacing(target, before, after),
        label="Group the names as ((value, aux), grad)",
        summary=f"Write `{after} =` on line {location.lineno}; then re-run.",
        safety=("Same values: value_and_grad with has_aux returns ((value, aux), gradient); "
                "each name gets what its name says."), safe=True),)


def _with_count(call: ast.Call, wanted: int) -> ast.Call:
    """The split call with ``wanted`` as its count, as the summary shows it."""
    new = copy.deepcopy(call)
    count = ast.Constant(wanted)
    keyword = next((k for k in new.keywords if k.arg == "num"), None)
    if len(new.args) >= 2:
        new.args[1] = count
    elif keyword is not None:
        keyword.value = count
    else:
        new.args.append(count)
    return new
