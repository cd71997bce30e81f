"""A jitted function called with an argument that is not an array: a string, ``None``, a
function, an object (``TypeError: Error interpreting argument to <function forward at
0x...> as an abstract array. The problematic value is of type <class 'str'> and was passed
to the function at path mode.``), or a pytree with such a leaf (``cfg['name']``).

jit traces arrays; a setting that chooses what the function does must be static. Where the
value is a whole parameter, hashable (a string, a number, None, or a function: a Python
function or a jitted one, which hash by identity), and the function is jitted in a cell (its
decorator or ``g = jax.jit(f)``), the fix adds it to ``static_argnames``: jit then compiles
once per value and hands the value to the code as it is. A NumPy function (``np.cos``) gets
no fix: static, it would be handed tracers it cannot take. A function inside a pytree
argument (``model['activation']``) is held in ``jax.tree_util.Partial`` where the dict, list
or tuple display that built the argument writes it (``"activation":
jax.tree_util.Partial(jax.nn.relu)``): a Partial is a pytree with no leaves that keeps its
function as static data, so jit traces the arrays beside it and calling it calls the
function. Offered where the calling line passes a name that the latest top-level ``name =
{...}`` of a cell built, and that display still writes the very function passed. Any other
leaf inside a pytree, a NamedTuple's string field say, is explained (a dataclass registered
with that field in ``meta_fields``), but for an entry of a dict the function never reads: a
batch from a data loader that carries each example's id or file name beside its arrays, where
the jitted function reads the dict only by string keys (``batch["image"]``) and never that
one. The call passes the dict without the entries it does not read that hold no numbers
(``{k: v for k, v in batch.items() if k != 'id'}``): the function sees the same values.

Reports: jax-ml/jax#5228 (``jit`` called with a NumPy array of strings),
BirkhoffG/jax-dataloader#2 (a DataLoader object passed to a jitted step),
pyro-ppl/numpyro#1078 (``None`` passed through a transformed function), jax-ml/jax#953 (a
NamedTuple of an optimizer's functions passed to jit), jax-ml/jax#4416 (a function passed to
a jitted helper), patrick-kidger/equinox#1127 (a model dict that holds its activation
function, passed to a plain jax.jit), patrick-kidger/equinox#239 (the FAQ entry for a model
with a function in its pytree); google/flax#1492 (an evaluation batch that keeps its
byte-string ids, fixed by deleting them), dattalab/keypoint-moseq#130 (an array of names
beside the data). JAX's docs teach the pytree case in "Custom pytrees".
"""

from __future__ import annotations

import ast
import inspect
import re
from dataclasses import dataclass
from types import FrameType

from jax_nbhelp.catalog import (
    _entry,
    _jit_arguments,
    _provenance,
    _scopes,
    _static_fix,
    _tracing,
)
from jax_nbhelp.catalog._example import NO_FIX, Example, corrected, made_static
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.safe_eval import Evaluator
from jax_nbhelp.fix.fix_builders import rewrite_fix

_UNSET = object()

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

_ACT = ("from dataclasses import dataclass\n\n@jax.tree_util.register_dataclass\n@dataclass\n"
        "class Act:\n    fn: object\n    scale: jax.Array\n\n@jax.jit\ndef run(a, x):\n"
        "    return a.fn(a.scale * x)\n\nact = Act(jax.nn.relu, jnp.array(2.0))")
_ACTED = "y = run(act, jnp.array([-1.0, 1.0]))"
_ROWS = "rows = np.array([('a', 1.0), ('b', 2.0)], dtype=object)\ncol = rows[:, 1]"
_TWICE = "@jax.jit\ndef twice(step, x):\n    return step(step(x))"
_PENALTY = ("def penalty(w, norm):\n"
            "    return jnp.sum(w ** 2) if norm == 'l2' else jnp.sum(jnp.abs(w))")
_GRADIENT = "g = jax.jit(jax.grad(penalty))(jnp.array([1.0, -2.0]), 'l1')"
_LAYER = ("layer = {'scale': jnp.array([1.0, 2.0]), 'act': jax.nn.relu}\n\n@jax.jit\n"
          "def apply(layer, x):\n    return layer['act'](layer['scale'] * x)")
_APPLIED = "y = apply(layer, jnp.array([-1.0, 1.0]))"
_SCORED = ("@jax.jit\ndef accuracy(batch):\n"
           "    return jnp.mean(batch['pred'] == batch['label'])")
_NAMED = ("batch = {'name': np.array(['a.png', 'b.png']), 'pred': np.array([1, 0]),\n"
          "         'label': np.array([1, 1])}")

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
    # a function inside a dict argument: held in a Partial where the dict is written
    Example(setup=("import jax, jax.numpy as jnp", _LAYER), failing=_APPLIED,
            fix="Hold it in a Partial", check="y.tolist() == [0.0, 2.0]",
            fixed=("import jax, jax.numpy as jnp",
                   _LAYER.replace("jax.nn.relu", "jax.tree_util.Partial(jax.nn.relu)"),
                   _APPLIED)),
    corrected("import jax, jax.numpy as jnp", _POINT, _POINT_FIXED,
              "r = norm(Point('a', 3.0, 4.0))", NO_FIX, "float(r) == 5.0"),
    # a column of a NumPy array of objects, each a number (jax-ml/jax#856)
    Example(
        setup=("import jax, jax.numpy as jnp\nimport numpy as np", _ROWS),
        failing="d = jnp.ones(2) - col", fix="Use col.astype(float)",
        check="d.tolist() == [0.0, -1.0]",
        fixed=("import jax, jax.numpy as jnp\nimport numpy as np", _ROWS,
               "d = jnp.ones(2) - col.astype(float)")),
    # a function in a field of a registered dataclass, built where the object is written
    # (patrick-kidger/equinox#149)
    Example(setup=("import jax, jax.numpy as jnp", _ACT), failing=_ACTED,
            fix="Hold it in a Partial", check="y.tolist() == [0.0, 2.0]",
            fixed=("import jax, jax.numpy as jnp",
                   _ACT.replace("Act(jax.nn.relu", "Act(jax.tree_util.Partial(jax.nn.relu)"),
                   _ACTED)),
    # a loader's batch keeps each example's name, which the function never reads
    Example(setup=("import jax, jax.numpy as jnp\nimport numpy as np", _SCORED, _NAMED),
            failing="acc = accuracy(batch)", fix="Leave 'name' out of batch",
            check="float(acc) == 0.5",
            fixed=("import jax, jax.numpy as jnp\nimport numpy as np", _SCORED, _NAMED,
                   "acc = accuracy({k: v for k, v in batch.items() if k != 'name'})")),
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
        fix = _static_fix.parameter_static_fix(ctx, function, bad.parameter, location)
        if fix is not None:
            fixes.append(fix)
    if not fixes and bad.short_type == "ndarray" and location is not None:
        numbers = _object_numbers_fix(ctx, location)
        if numbers is not None:
            explanation = (f"{subject} hands {function} `{numbers[1]}`, a NumPy array of "
                           "Python objects, and JAX takes arrays of numbers only.")
            fixes.append(numbers[0])
    if not fixes and bad.parameter is None and location is not None \
            and bad.short_type in _FUNCTIONS:
        fix = _partial_fix(ctx, function, bad.path or "", location)
        if fix is not None:
            fixes.append(fix)
    if not fixes and location is not None:
        unread = _unread_fields_fix(ctx, function, bad.path or "", location)
        if unread is not None:
            explanation += f" {function} never reads it: it can be left out of the call."
            fixes.append(unread)
    if not fixes:
        notes.append(f"Mark {bad.path} static if it is a setting (static_argnames, or for a "
                     "field of your own class, a dataclass registered with that field in "
                     "meta_fields); pass arrays for values the function computes with.")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=fixes, notes=notes,
                            error=bad.link.summary.splitlines()[0])


# -- a NumPy array of objects that are numbers ---------------------------------------------

_MAX_OBJECTS = 1 << 16


def _object_numbers_fix(ctx: ErrorContext, location: Location) -> tuple[Fix, str] | None:
    """``preds - targets`` where ``targets`` is a column of a NumPy array of objects (rows of
    mixed items), every one a Python or NumPy number (jax-ml/jax#856): the same numbers as a
    numeric array."""
    held = [v for v in ctx.values_at(location) if v.kind == "numpy" and v.dtype == "object"
            and v.text.isidentifier()]
    frame = ctx.live_frame(location)
    numpy = ctx.alias("numpy")
    if len(held) != 1 or frame is None or numpy is None:
        return None
    name = held[0].text
    value = frame.f_locals.get(name, frame.f_globals.get(name))
    items = getattr(value, "flat", None)
    size = getattr(value, "size", _MAX_OBJECTS + 1)
    if items is None or type(size) is not int or size > _MAX_OBJECTS:
        return None
    numbers = list(items)
    if not numbers or not all(type(item).__name__ in _NUMBER_TYPES for item in numbers):
        return None
    kind = "int" if all("int" in type(item).__name__ for item in numbers) else "float"
    after = f"{name}.astype({kind})"
    parsed = _tracing.parse(location.source)
    uses = [node for node in ast.walk(parsed[0]) if isinstance(node, ast.Name)
            and node.id == name and isinstance(node.ctx, ast.Load)
            and node.lineno == location.lineno] if parsed is not None else []
    if not uses:
        return None
    return rewrite_fix(
        ctx, location, _tracing.replacing_each([(use, name, after) for use in uses]),
        label=f"Use {after}",
        summary=(f"Write `{after}` for `{name}` on line {location.lineno}: the same numbers in "
                 "an array of numbers, which JAX can take; then re-run."),
        safety=(f"Same values: every object in {name} is a number, and {after} holds those "
                "numbers."),
        safe=True), name


_NUMBER_TYPES = frozenset({"int", "float", "float64", "float32", "int64", "int32", "float16",
                           "int16", "int8", "uint8", "uint16", "uint32", "uint64"})


# -- a function inside a pytree argument: held as a Partial -----------------------------------

# the functions a Partial can hold for jit: a Python function, JAX's custom derivatives and
# jitted functions (a NumPy ufunc would be handed tracers it cannot take)
_FUNCTIONS = frozenset({"function", "custom_jvp", "custom_vjp", "PjitFunction",
                        "builtin_function_or_method", "partial"})
_PATH = re.compile(r"^(?P<root>[A-Za-z_]\w*)"
                   r"(?P<steps>(?:\[(?:'[^']*'|\"[^\"]*\"|\d+)\]|\.[A-Za-z_]\w*)+)$")
_STEP = re.compile(r"\[(?:'(?P<single>[^']*)'|\"(?P<double>[^\"]*)\"|(?P<index>\d+))\]"
                   r"|\.(?P<field>[A-Za-z_]\w*)")


@dataclass(frozen=True)
class _Field:
    """A step into a dataclass instance: the field's name, and the names its ``__init__``
    takes in order (how a call that builds it passes each)."""

    name: str
    init: tuple[str, ...]


def _partial_fix(ctx: ErrorContext, function: str, path: str, caller: Location) -> Fix | None:
    """``jax.tree_util.Partial(f)`` for the function ``f`` the literal that built the passed
    dict (list, tuple) holds at ``path`` (``model['activation']``). A Partial is a pytree
    with no leaves that keeps its function as static data: jit compiles once per function,
    and calling it calls the function."""
    found = _PATH.match(path)
    jax = ctx.alias("jax")
    frame = ctx.live_frame(caller)
    if found is None or jax is None or frame is None:
        return None
    written: list[str | int | _Field] = [
        m["single"] if m["single"] is not None else m["double"] if m["double"] is not None
        else int(m["index"]) if m["index"] is not None else _Field(m["field"], ())
        for m in _STEP.finditer(found["steps"])]
    passed = _passed_for(caller, frame, function, found["root"])
    if len(passed) != 1 or not isinstance(passed[0], ast.Name):
        return None
    name = passed[0].id
    value = frame.f_locals.get(name, frame.f_globals.get(name, _UNSET))
    steps: list[str | int | _Field] = []
    for step in written:
        if isinstance(step, _Field):  # a dataclass's field, read from the instance's own
            fields = getattr(type(value), "__dataclass_fields__", None)  # dict: no property
            held = getattr(value, "__dict__", None)
            if type(fields) is not dict or type(held) is not dict or step.name not in held:
                return None
            steps.append(_Field(step.name, tuple(n for n, f in fields.items()
                                                 if getattr(f, "init", False))))
            value = held[step.name]
            continue
        if not (type(value) is dict and type(step) is str and step in value) and not (
                type(value) in (list, tuple) and type(step) is int and step < len(value)):
            return None
        steps.append(step)
        value = value[step]  # a builtin container's item: data
    literal = _literal_at(ctx, name, steps)
    if literal is None:
        return None
    place, node = literal
    evaluate = Evaluator(frame.f_globals)
    if evaluate(node) is not value or node.end_lineno != node.lineno:
        return None  # the literal no longer holds what was passed
    code = place.source or ""
    before = _tracing.segment(code, node, strip=False)
    after = f"{jax}.tree_util.Partial({before})"
    return rewrite_fix(
        ctx, place, _tracing.replacing(node, before, after),
        label="Hold it in a Partial",
        summary=(f"Write `{after}` for `{before}` on {place.label}, where {name} is built: "
                 "a Partial is a pytree that keeps its function as static data, so jit "
                 f"traces {name}'s arrays and compiles once per function; then re-run."),
        safety=(f"Same values: calling the Partial calls `{before}` with the same arguments. "
                "Tree functions (tree_map, tree_leaves) no longer meet the function as a "
                "leaf."),
        safe=True)


_ENTRY = re.compile(r"(?P<root>[A-Za-z_]\w*)\[(?P<quote>['\"])(?P<key>[^'\"]+)(?P=quote)\]")


def _numeric(value: object) -> bool:
    """A Python number, or a NumPy or JAX array of numbers (read from their own classes)."""
    if type(value) in (int, float, bool, complex):
        return True
    module = (type(value).__module__ or "").split(".", 1)[0]
    kind = getattr(getattr(value, "dtype", None), "kind", None) \
        if module in ("numpy", "jax", "jaxlib") else None
    return kind is not None and kind in "biufcV"


def _keys_read(func: ast.FunctionDef, parameter: str) -> set[str] | None:
    """The string keys ``func`` reads its ``parameter`` with (``batch["image"]``); None where
    it uses the parameter any other way (passes it on, iterates it, rebinds it)."""
    keys: set[str] = set()
    subscripted = {id(n.value): n for n in ast.walk(func) if isinstance(n, ast.Subscript)}
    for node in ast.walk(func):
        if not isinstance(node, ast.Name) or node.id != parameter:
            continue
        outer = subscripted.get(id(node))
        if not isinstance(node.ctx, ast.Load) or outer is None \
                or not isinstance(outer.slice, ast.Constant) or type(outer.slice.value) is not str:
            return None
        keys.add(outer.slice.value)
    return keys


def _unread_fields_fix(ctx: ErrorContext, function: str, path: str, caller: Location
                       ) -> Fix | None:
    """A dict passed to the jitted ``function`` whose entry at ``path`` (``batch['id']``) is
    not an array, where the function reads the dict only by string keys and never that one:
    the call passes the dict without its entries the function does not read that are not
    arrays (an example's id, a file name). Same results: the function never sees them."""
    found = _ENTRY.fullmatch(path)
    frame = ctx.live_frame(caller)
    if found is None or frame is None:
        return None
    passed = _passed_for(caller, frame, function, found["root"])
    if len(passed) != 1 or passed[0] is None or passed[0].lineno != passed[0].end_lineno:
        return None
    node, evaluate = passed[0], Evaluator(frame)
    value = evaluate(node)
    calls = _tracing.calls_on(caller)[0]
    codes = [_provenance.function_code(evaluate(call.func)) for call in calls
             if node in [*call.args, *(k.value for k in call.keywords)]]
    if type(value) is not dict or len(codes) != 1 or codes[0] is None \
            or found["key"] not in value:
        return None
    try:
        lines, _ = inspect.findsource(codes[0])  # the def's source, as linecache holds it
    except (OSError, TypeError):
        return None
    parsed = _tracing.parse("".join(lines))
    func = _tracing.find_def(parsed[0], function, None) if parsed is not None else None
    read = _keys_read(func, found["root"]) if func is not None else None
    if read is None or found["key"] in read or not read <= set(value):
        return None
    dropped = [key for key in value if type(key) is str and key not in read
               and not _numeric(value[key])]
    code = caller.source or ""
    before = _tracing.segment(code, node)
    if found["key"] not in dropped or not before:
        return None
    listed = ", ".join(repr(key) for key in dropped)
    test = f"k != {dropped[0]!r}" if len(dropped) == 1 else f"k not in ({listed})"
    after = f"{{k: v for k, v in {before}.items() if {test}}}"
    kept = _tracing.quoted([repr(key) for key in sorted(read)])
    return rewrite_fix(
        ctx, caller, _tracing.replacing(node, before, after),
        label=f"Leave {listed} out of {before}",
        summary=(f"Pass `{after}` on line {caller.lineno}: {function} reads its "
                 f"{found['root']} only by the keys {kept}, and {listed} holds no numbers for "
                 "jit to trace; then re-run."),
        safety=(f"Same results: {function} reads only {kept} of {found['root']}, and those "
                f"are passed as they are; {before} itself is not changed."),
        safe=True)


def _passed_for(caller: Location, frame: FrameType, function: str, parameter: str
                ) -> list[ast.expr | None]:
    """What each call on the caller's line of the jitted ``function`` (``g(...)`` of a jitted
    ``g``, ``jax.jit(f)(...)``) passes for its ``parameter``."""
    parsed = _tracing.parse(caller.source)
    if parsed is None:
        return []
    evaluate = Evaluator(frame)
    passed = []
    for call in ast.walk(parsed[0]):
        if not isinstance(call, ast.Call) or not (
                call.lineno <= caller.lineno <= (call.end_lineno or call.lineno)):
            continue
        func = call.func
        target = func.args[0] if isinstance(func, ast.Call) and _tracing.is_jit(func.func) \
            and func.args else func
        code = _provenance.function_code(evaluate(target))
        if code is None or code.co_name != function:
            continue
        names = code.co_varnames[:code.co_argcount]
        if parameter in names:
            passed.append(_provenance.bound(call, names.index(parameter), parameter))
    return passed


def _literal_at(ctx: ErrorContext, name: str, steps: list[str | int | _Field]
                ) -> tuple[Location, ast.expr] | None:
    """The expression at ``steps`` inside the literal of the latest top-level ``name = {...}``
    (a dict, list or tuple display, or a call that builds a dataclass), with its cell."""
    for number in sorted(ctx.cell_sources, reverse=True):
        place = ctx.cell(number)
        parsed = _tracing.parse(place.source) if place is not None else None
        if place is None or parsed is None:
            continue
        assigned = [n for n in parsed[0].body if isinstance(n, ast.Assign)
                    and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                    and n.targets[0].id == name]
        if not assigned:
            if _scopes.stores(parsed[0], name):
                return None  # bound another way in that cell
            continue
        node: ast.expr | None = assigned[-1].value
        for step in steps:
            node = _item(node, step)
        return (place, node) if node is not None else None
    return None


def _item(node: ast.expr | None, step: str | int | _Field) -> ast.expr | None:
    if isinstance(step, _Field):  # `Pool(jnp.max, 2)` or `Pool(operation=jnp.max)`
        if not isinstance(node, ast.Call) or any(
                isinstance(a, ast.Starred) for a in node.args) or any(
                k.arg is None for k in node.keywords):
            return None
        named = [k.value for k in node.keywords if k.arg == step.name]
        if named:
            return named[0]
        index = step.init.index(step.name) if step.name in step.init else len(node.args)
        return node.args[index] if index < len(node.args) else None
    if isinstance(node, ast.Dict) and type(step) is str:
        keys = [i for i, k in enumerate(node.keys)
                if isinstance(k, ast.Constant) and k.value == step]
        return node.values[keys[0]] if len(keys) == 1 and None not in node.keys else None
    if isinstance(node, ast.List | ast.Tuple) and type(step) is int and step < len(node.elts) \
            and not any(isinstance(e, ast.Starred) for e in node.elts):
        return node.elts[step]
    return None
