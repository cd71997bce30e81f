"""An array, list or dict passed for a parameter that jit was told to treat as static.

``ValueError: Non-hashable static arguments are not supported. An error occurred while
trying to hash an object of type <class 'jaxlib._jax.ArrayImpl'>, 4. ...`` JAX raises it at
the call, before tracing: the only user frame is the calling line, and the message names
the value's type and repr but not the parameter. The parameter is found from the calling
line, the jitted ``def`` and its ``static_argnames``/``static_argnums`` (on the decorator, a
``g = jax.jit(f, ...)`` line in any cell, or ``jax.jit(f, ...)(...)`` on the calling line).

Fixes: when the call passes a global name holding an integer array or list whose value the
message shows, pass ``int(n)`` / ``tuple(n.tolist())`` / ``tuple(n)`` instead (the same
numbers as a Python value jit can hash); a list of ints written in the call (``[2, 3]``) is
written as the tuple ``(2, 3)``, and lists of them as tuples of tuples (``[[1, 0], [0, 1]]``
as ``((1, 0), (0, 1))``). It comes first: the parameter was marked static,
so the code may need its value (a size, a shape), and a Python value works either way. Then
stop marking the parameter static (same values when the code only uses it as data; when it
needs the value, the re-run fails with a tracer error that is diagnosed in turn).
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.catalog import _entry, _static_fix, _static_site, _tracing
from jax_nbhelp.catalog._example import TRACING_IMPORTS, Example
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.core.protocol import is_top_level
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH307"
TITLE = "An array, list or dict passed for a static argument"
MESSAGE = "Non-hashable static arguments are not supported"

_IMPORTS = TRACING_IMPORTS
_SCALE = '''\
@partial(jax.jit, static_argnames='scale')
def scaled(x, scale):
    return x * scale'''
_RAMP = '''\
def ramp(x, n):
    return x + jnp.arange(n)'''
_RAMP_JIT = "ramp_jit = jax.jit(ramp, static_argnums=1)"
_TILE = '''\
@partial(jax.jit, static_argnames='shape')
def tiled(x, shape):
    return jnp.zeros(shape) + x'''

_SETTINGS = ("from dataclasses import dataclass\n\n@dataclass\nclass Blur:\n    width: int\n\n"
             "@partial(jax.jit, static_argnums=1)\ndef blurred(x, blur):\n"
             "    return jnp.convolve(x, jnp.ones(blur.width) / blur.width, mode='valid')")

EXAMPLES = (
    # Used as data: dropping it from static_argnames computes the same values.
    Example(
        setup=(_IMPORTS, _SCALE, "s = jnp.float32(2.0)"),
        failing="out = scaled(jnp.ones(3), s)",
        fix="Stop treating scale as static",
        check="out.tolist() == [2.0, 2.0, 2.0]",
        fixed=(_IMPORTS, _SCALE.replace("@partial(jax.jit, static_argnames='scale')",
                                        "@jax.jit"),
               "s = jnp.float32(2.0)", "out = scaled(jnp.ones(3), s)"),
    ),
    # A size, jitted in another cell with static_argnums: pass the array's value as an int.
    Example(
        setup=(_IMPORTS, _RAMP, _RAMP_JIT, "n = jnp.int32(4)"),
        failing="out = ramp_jit(jnp.ones(4), n)",
        fix="Pass int(n)",
        check="out.tolist() == [1.0, 2.0, 3.0, 4.0]",
        fixed=(_IMPORTS, _RAMP, _RAMP_JIT, "n = jnp.int32(4)",
               "out = ramp_jit(jnp.ones(4), int(n))"),
    ),
    # A shape written as a list in the call: the tuple of the same ints hashes.
    Example(
        setup=(_IMPORTS, _TILE),
        failing="out = tiled(1.0, [2, 3])",
        fix="Pass (2, 3)",
        check="out.shape == (2, 3) and float(out.sum()) == 6.0",
        fixed=(_IMPORTS, _TILE, "out = tiled(1.0, (2, 3))"),
    ),
    # A shape held in a list: a tuple of the same ints hashes.
    Example(
        setup=(_IMPORTS, _TILE, "shape = [2, 3]"),
        failing="out = tiled(1.0, shape)",
        fix="Pass tuple(shape)",
        check="out.shape == (2, 3) and float(out.sum()) == 6.0",
        fixed=(_IMPORTS, _TILE, "shape = [2, 3]", "out = tiled(1.0, tuple(shape))"),
    ),
    # Pad widths written as a list of lists: tuples of the same ints, all the way down.
    Example(
        setup=(_IMPORTS, "def padded(x, widths):\n    return jnp.pad(x, widths)\n"
               "padded_jit = jax.jit(padded, static_argnums=1)"),
        failing="out = padded_jit(jnp.ones((1, 1)), [[1, 0], [0, 2]])",
        fix="Pass ((1, 0), (0, 2))",
        check="out.shape == (2, 3) and float(out.sum()) == 1.0",
        fixed=(_IMPORTS, "def padded(x, widths):\n    return jnp.pad(x, widths)\n"
               "padded_jit = jax.jit(padded, static_argnums=1)",
               "out = padded_jit(jnp.ones((1, 1)), ((1, 0), (0, 2)))"),
    ),
    # A @dataclass of settings compares its fields, so it is unhashable unless frozen
    # (jax-ml/jax#3701): frozen, it hashes them.
    Example(
        setup=(_IMPORTS, _SETTINGS),
        failing="out = blurred(jnp.arange(4.0), Blur(width=2))",
        fix="Freeze Blur",
        check="out.tolist() == [0.5, 1.5, 2.5]",
        fixed=(_IMPORTS, _SETTINGS.replace("@dataclass\n", "@dataclass(frozen=True)\n"),
               "out = blurred(jnp.arange(4.0), Blur(width=2))"),
    ),
)

WHY = _entry.prose("""
jax.jit compiles your function once per combination of static values, and finds the compiled
program by hashing them. Arrays, lists and dicts cannot be hashed (they are mutable, and an
array's == is elementwise), so they can only be traced arguments: values your code computes
with, not settings such as sizes, shapes or flags.
""")

_VALUE_RE = re.compile(r"hash an object of type <class '(?P<type>[^']+)'>, (?P<value>.*?)\. "
                       r"The error was:", re.DOTALL)
_ARRAY_TYPES = ("ArrayImpl", "numpy.ndarray")
_INT_RE = re.compile(r"-?\d+")
_INTS_RE = re.compile(r"\[\s*(?:-?\d+(?:,?\s+|,?\s*(?=\])))*\]")
_ROW = r"\[\s*-?\d+(?:\s*,\s*-?\d+)*\s*,?\s*\]"
_ROWS_RE = re.compile(rf"\[\s*{_ROW}(?:\s*,\s*{_ROW})*\s*,?\s*\]")  # [[1, 0], [0, 2]]


def _kind_matches(node: ast.expr, ctx: ErrorContext, type_name: str, module_level: bool) -> bool:
    """Whether the expression passed may be the unhashable value the message shows."""
    if type_name.endswith(_ARRAY_TYPES):
        return _tracing.classify(node, ctx, module_level) == "array"
    literal = {"list": (ast.List, ast.ListComp), "dict": (ast.Dict, ast.DictComp),
               "set": (ast.Set, ast.SetComp)}.get(type_name)
    if literal is not None and isinstance(node, literal):
        return True
    return isinstance(node, ast.Name) and module_level \
        and ctx.type_of(node.id) == f"builtins.{type_name}"


def _ints_listed(node: ast.expr, top: bool = True) -> bool:
    """``[2, 3]`` or ``[[1, 0], [0, 1]]`` written in the call: a list literal of int
    literals, or of such lists (tuples inside it count too)."""
    if isinstance(node, ast.Constant):
        return not top and type(node.value) is int
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _ints_listed(node.operand, top)
    return isinstance(node, ast.List if top else (ast.List, ast.Tuple)) and bool(node.elts) \
        and all(_ints_listed(item, top=False) for item in node.elts)


def _as_tuple(code: str, node: ast.expr) -> str:
    """The literal with every list written as a tuple: the same ints, hashable."""
    if not isinstance(node, (ast.List, ast.Tuple)):
        return _tracing.segment(code, node)
    items = [_as_tuple(code, item) for item in node.elts]
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _conversion(type_name: str, value: str, name: str) -> str | None:
    """``int(n)``/``tuple(n.tolist())``/``tuple(n)`` when the shown value is integers."""
    value = value.strip()
    if type_name.endswith(_ARRAY_TYPES):
        if _INT_RE.fullmatch(value):
            return f"int({name})"
        if _INTS_RE.fullmatch(value) and "[" not in value[1:]:
            return f"tuple({name}.tolist())"
    if type_name == "list" and _INTS_RE.fullmatch(value) and "[" not in value[1:]:
        return f"tuple({name})"
    if type_name == "list" and _ROWS_RE.fullmatch(value):
        return f"tuple(map(tuple, {name}))"  # a list of lists of ints
    return None


TRIGGERS = (MESSAGE,)


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    link = next((link for link in ctx.chain
                 if link.is_a("ValueError") and link.message.startswith(MESSAGE)), None)
    if link is None:
        return None
    shown = _VALUE_RE.search(link.message)
    type_name = shown.group("type") if shown else ""
    value = shown.group("value") if shown else ""
    caller = ctx.call_site()
    frames = ctx.top.user_frames
    module_level = bool(frames) and is_top_level(frames[-1].function)
    kind = ("an array" if type_name.endswith(_ARRAY_TYPES)
            else f"a {type_name}" if type_name else "a value that cannot be hashed")
    short = value if len(value) <= 40 else value[:37] + "..."
    what = f"{kind} ({short})" if value else kind
    fixes: list[Fix] = []
    notes: list[str] = []
    site = parameter = node = None
    code = ""
    on_line = _static_site.sites_on_line(ctx, caller) if caller is not None else []
    if on_line:  # the first call on the line of a function jitted with static options
        call, site, code = on_line[0]
        candidates = []
        for name in site.static:
            passed = _tracing.bind_argument(call, site.func, name)
            if passed is not None and _kind_matches(passed, ctx, type_name, module_level):
                candidates.append((name, passed))
        if len(candidates) == 1:
            (parameter, node), = candidates
    line = f"`{caller.line.strip()}`" if caller is not None else "A call"
    where = f" at {caller.label}" if caller is not None else ""
    if site is None:
        explanation = (f"{line}{where} passes {what} for a parameter that jax.jit was told to "
                       "treat as static (static_argnames or static_argnums).")
    else:
        jit_line = site.location.source.splitlines()[site.location.lineno - 1].strip() \
            if site.location.source else ""
        jitted = f"`{jit_line}` at {site.location.label}"
        if parameter is None or node is None:
            explanation = (f"{line}{where} passes {what} for one of {site.function}'s static "
                           f"parameters ({_tracing.quoted(list(site.static))}), marked static "
                           f"by {jitted}.")
        else:
            expression = _tracing.segment(code, node)
            explanation = (f"{line}{where} passes {parameter}={expression}, {what}, but "
                           f"{jitted} marks {parameter} static.")
            if isinstance(node, ast.Name) and module_level and caller is not None:
                conversion = _conversion(type_name, value, node.id)
                if conversion is not None:
                    fixes.append(_convert_fix(ctx, caller, node, node.id, conversion,
                                              parameter, site.function))
            elif _ints_listed(node) and caller is not None:
                fixes.append(_convert_fix(ctx, caller, node, expression,
                                          _as_tuple(code, node), parameter, site.function))
            fixes.append(_unstatic_fix(ctx, site, parameter))
    frozen = _frozen_fix(ctx, type_name)
    if frozen is not None:  # the lasting fix: the settings class made hashable
        fixes.insert(0, frozen)
    notes.append("If the parameter is data your code computes with, don't mark it static: "
                 "jit traces it like any array. If it is a setting (a size, a shape, a loop "
                 "count, a flag), pass a Python value: int(n) for a 0-d integer array, "
                 "tuple(...) for a list or 1-D array; a dict of settings can become a tuple "
                 "of (key, value) pairs or a frozen dataclass.")
    return _entry.diagnosis(ctx, __name__, explanation, location=caller, call_site=None,
                            fixes=fixes, notes=notes)


def _frozen_fix(ctx: ErrorContext, type_name: str) -> Fix | None:
    """A settings object of the user's ``@dataclass`` (jax-ml/jax#3701): a dataclass that
    compares its fields is unhashable unless frozen, and ``frozen=True`` makes it hash its
    fields, which is what jit needs of a static argument."""
    module, _, name = type_name.rpartition(".")
    if module != "__main__" or not name.isidentifier():
        return None
    found = _static_site.latest_top_level(ctx, ast.ClassDef, name)
    if found is None:
        return None
    place, node = found
    decorators = [d for d in node.decorator_list
                  if (dotted(d.func if isinstance(d, ast.Call) else d) or "").rsplit(".", 1)[-1]
                  == "dataclass"]
    if len(decorators) != 1 or decorators[0].end_lineno != decorators[0].lineno or any(
            isinstance(n, ast.FunctionDef) and n.name in ("__hash__", "__eq__")
            for n in node.body):
        return None
    decorator = decorators[0]
    keywords = decorator.keywords if isinstance(decorator, ast.Call) else []
    if any(k.arg in ("frozen", "unsafe_hash", "eq") or k.arg is None for k in keywords):
        return None  # the user chose how it compares and hashes
    before = _tracing.segment(place.source or "", decorator)
    after = (f"{before}(frozen=True)" if not isinstance(decorator, ast.Call)
             else f"{before[:-1]}{', ' if decorator.args or keywords else ''}frozen=True)")
    return rewrite_fix(
        ctx, place, _tracing.replacing(decorator, before, after), label=f"Freeze {name}",
        summary=(f"Write `@{after}` for `@{before}` on {name} (line {place.lineno}): a frozen "
                 "dataclass hashes its fields, so jit can take it as a static setting; then "
                 "re-run."),
        safety=(f"Same values: {name} keeps its fields, and jit compiles once per distinct "
                f"set of them. A frozen {name} refuses assignment to a field after it is "
                "made (FrozenInstanceError)."),
        safe=True)


def _unstatic_fix(ctx: ErrorContext, site: _static_site.JitSite, parameter: str) -> Fix:
    positional = [a.arg for a in [*site.func.args.posonlyargs, *site.func.args.args]]
    index = positional.index(parameter) if parameter in positional else None
    label = f"Stop treating {parameter} as static"
    summary = (f"Remove {parameter} from the static arguments where jax.jit wraps "
               f"{site.function}, so jit traces it like any other array argument.")
    safety = (f"Same values when {site.function} only computes with {parameter}: jit then "
              "runs the same operations on its traced value. If the code needs its value "
              "(a size, a shape, a loop count, an if), the re-run fails with a tracer error, "
              "which jax_nbhelp diagnoses in turn.")
    lineno = site.location.lineno

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.remove_static_arg import remove_static_arg

        return remove_static_arg(source, lineno, site.function, parameter, index)

    return rewrite_fix(ctx, site.location, transform, label=label, summary=summary,
                       safety=safety, safe=True)


def _convert_fix(ctx: ErrorContext, caller: Location, node: ast.expr, name: str,
                 conversion: str, parameter: str, function: str) -> Fix:
    label = f"Pass {conversion}"
    summary = (f"Pass {conversion} for {parameter}: the same numbers as a Python value, "
               "which jit can hash and hand to your code as a static setting.")
    safety = (f"Same values: {name} holds integers (the error shows them), and {conversion} "
              f"is those integers as Python numbers. jit compiles {function} again for each "
              f"new value of {parameter}.")

    def transform(source: str) -> str:
        return _static_fix.replace_argument(source, node, name, conversion)

    return rewrite_fix(ctx, caller, transform, label=label, summary=summary, safety=safety,
                       safe=True)
