"""An array inside what jit compares instead of tracing: a static argument that holds one
(``ValueError: static arguments should be comparable using __eq__. ... The truth value of an
array with more than one element is ambiguous``), or a pytree class whose ``tree_flatten``
puts one in its aux data (``Exception raised while checking equality of metadata fields of
pytree ... (Note: arrays cannot be passed as metadata fields!)``).

jit keeps one compiled program per combination of static values and pytree structures, and
finds it by comparing them with ``==``. The first call compiles; the second compares the
new value with the cached one, and ``==`` on arrays is elementwise, so there is no single
answer. The card names the argument (from the call and the jit's static options) or the
class and its aux expression (from its ``tree_flatten``), and the array field.

Fix, for a dataclass passed as a static argument, defined and jitted in cells: register the
dataclass as a pytree, its array fields as data and its other fields as metadata
(``jax.tree_util.register_dataclass``, after the class), and stop marking the parameter
static. jit then traces the arrays and still compares the other fields. A pytree class's
aux data is explained: moving an array into the children changes the class, and instances
made before the fix keep the old one.

Reports: patrick-kidger/equinox#746 (a static data object holding an array, failing on the
second call), jax-ml/jax#883 (an array passed as a static argument, failing at the cache
lookup), jax-ml/jax#19547 (a pytree class keeping an array in its aux data),
jax-ml/jax#7826 (a flax dataclass field marked not a pytree node holding an array),
jax-ml/jax#24204 (an array in a registered dataclass's meta fields), gbionics/jaxsim#105
(aux data whose ``==`` does not return one bool), jax-ml/jax#28979 (the message JAX gave
the pytree case).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from jax_nbhelp.catalog import _entry, _static_site, _tracing
from jax_nbhelp.catalog._example import NO_FIX, TRACING_IMPORTS, Example
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.line_values import Value, instance_fields, parsed_source
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.fix.fix_builders import rewrite_fix
from jax_nbhelp.rewrite.errors import CannotRewrite

CODE = "JNH553"
TITLE = "An array in what jit compares: a static argument or a pytree's aux data"
STATIC = "static arguments should be comparable using __eq__"
METADATA = "checking equality of metadata fields of pytree"
_AMBIGUOUS = "truth value of an array"
_COMPARED = re.compile(r"comparing two objects of types <class '(?P<cls>[^']+)'>")
_ARRAYS = ("array", "numpy", "tracer")
_ARRAY_ANNOTATION = re.compile(r"\b(Array|ArrayLike|ndarray)\b")

_TABLE = '''\
@dataclasses.dataclass(frozen=True)
class Lookup:
    table: jax.Array
    scale: float

    def __hash__(self):
        return hash((self.table.shape, self.scale))

@partial(jax.jit, static_argnames='lookup')
def apply(x, lookup):
    return x * lookup.scale + lookup.table

first = apply(jnp.ones(3), Lookup(jnp.arange(3.0), 2.0))'''
_TABLE_FIXED = _TABLE.replace(
    "@partial(jax.jit, static_argnames='lookup')",
    "jax.tree_util.register_dataclass(Lookup, data_fields=['table'], meta_fields=['scale'])"
    "\n\n@jax.jit")
_PAIR = '''\
@jax.tree_util.register_pytree_node_class
class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def tree_flatten(self):
        return (self.b,), (self.a,)

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(aux[0], children[0])

total = jax.jit(lambda p: p.a.sum() + p.b.sum())
first = total(Pair(jnp.arange(2.0), jnp.ones(3)))'''

EXAMPLES = (
    Example(
        setup=(TRACING_IMPORTS + "\nimport dataclasses", _TABLE),
        failing="second = apply(jnp.ones(3), Lookup(jnp.arange(3.0) + 1.0, 2.0))",
        fix="Trace lookup's arrays",
        check="second.tolist() == [3.0, 4.0, 5.0] and first.tolist() == [2.0, 3.0, 4.0]",
        fixed=(TRACING_IMPORTS + "\nimport dataclasses", _TABLE_FIXED,
               "second = apply(jnp.ones(3), Lookup(jnp.arange(3.0) + 1.0, 2.0))"),
    ),
    # An array in a pytree class's aux data: explained (the class itself must change).
    Example(
        setup=(TRACING_IMPORTS, _PAIR),
        failing="second = total(Pair(jnp.arange(2.0), jnp.ones(3)))",
        fix=NO_FIX,
        check="float(second) == 4.0",
        fixed=(TRACING_IMPORTS, _PAIR.replace("return (self.b,), (self.a,)",
                                              "return (self.a, self.b), None").replace(
            "return cls(aux[0], children[0])", "return cls(*children)"),
               "second = total(Pair(jnp.arange(2.0), jnp.ones(3)))"),
    ),
)

WHY = _entry.prose("""
jax.jit traces arrays and keeps everything else, static arguments and the aux data a pytree
class returns from tree_flatten, as part of what it compiled for. To reuse a compiled
program it compares those parts of a new call with the cached ones using ==, which must
say True or False. On arrays == compares element by element, so an array there makes the
comparison fail at the second call. Arrays belong among what jit traces: a pytree's
children, a registered dataclass's data fields, or an ordinary argument.
""")

TRIGGERS = (STATIC, METADATA)


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    link = next((link for link in ctx.chain
                 if STATIC in link.message or METADATA in link.message), None)
    if link is None:
        return None
    caller = ctx.call_site()
    if not any(_AMBIGUOUS in other.message for other in ctx.chain):
        # the comparison failed for a reason the chain does not show (a callback's text
        # keeps only JAX's message): for aux data, JAX's own note is all that is said
        return _unread_metadata(ctx, caller) if METADATA in link.message else None
    if STATIC in link.message:
        return _static(ctx, link.message, caller)
    return _metadata(ctx, caller)


def _unread_metadata(ctx: ErrorContext, caller: Location | None) -> Diagnosis:
    line = f"`{caller.line.strip()}`{_entry.at(caller)}" if caller is not None else "The call"
    explanation = (f"{line} passes a pytree whose aux data (what tree_flatten returns besides "
                   "its children) jit could not compare with == against what it compiled "
                   "for. JAX's note: aux data must be hashable with a plain ==, and arrays "
                   "cannot be aux data.")
    return _entry.diagnosis(ctx, __name__, explanation, location=caller)


# -- a static argument ----------------------------------------------------------------------

def _static(ctx: ErrorContext, message: str, caller: Location | None) -> Diagnosis | None:
    compared = _COMPARED.search(message)
    qualified = compared["cls"] if compared else ""
    short = qualified.rpartition(".")[2]
    line = f"`{caller.line.strip()}`{_entry.at(caller)}" if caller is not None else "The call"
    found = _static_argument(ctx, caller, short) if caller is not None else None
    fixes: list[Fix] = []
    if found is None:
        explanation = (f"{line} passes a static argument (a {short or 'value'}) that jit "
                       "compares with == against the one it compiled for, and == on an array "
                       "it holds is elementwise: there is no single True or False.")
        return _entry.diagnosis(ctx, __name__, explanation, location=caller)
    site, parameter, node = found
    fields = _fields(ctx, caller, node, qualified)  # type: ignore[arg-type]
    declared = _static_site.latest_top_level(ctx, ast.ClassDef, short)
    if fields is not None:
        arrays = [name for name, value in fields.items() if value.kind in _ARRAYS]
    elif declared is not None:  # built in the call: the fields its class declares as arrays
        arrays = [name for name, annotation in _annotations(declared[1]).items()
                  if _ARRAY_ANNOTATION.search(annotation)]
    else:
        arrays = []
    one = len(arrays) == 1
    held = ("" if not arrays else
            f", and its field{'' if one else 's'} {_tracing.quoted(arrays)} "
            f"{'holds an array' if one else 'hold arrays'}" if fields is not None else
            f", whose class declares {_tracing.quoted(arrays)} "
            f"{'an array' if one else 'arrays'}")
    explanation = (f"{line} passes {parameter} (a {short}), which {site.function}'s jit "
                   f"treats as static{held}. jit compares a static argument with == against "
                   "the one it compiled for, and == on arrays is elementwise: there is no "
                   "single True or False.")
    if arrays and caller is not None:
        fix = _register_fix(ctx, site, parameter, short, arrays)
        if fix is not None:
            fixes.append(fix)
    return _entry.diagnosis(ctx, __name__, explanation, location=caller, fixes=fixes)


def _static_argument(ctx: ErrorContext, caller: Location, short: str
                     ) -> tuple[_static_site.JitSite, str, ast.expr] | None:
    """The jit site, the static parameter and the expression the call passes for it: the one
    static parameter given an instance of the compared class (or the only static one)."""
    for call, site, _ in _static_site.sites_on_line(ctx, caller):
        passed = [(name, node) for name in site.static
                  if (node := _tracing.bind_argument(call, site.func, name)) is not None]
        chosen = [(name, node) for name, node in passed if _instance_of(ctx, node, short)]
        if len(chosen) != 1 and len(passed) == 1:
            chosen = passed
        if len(chosen) == 1:
            return site, chosen[0][0], chosen[0][1]
    return None


def _instance_of(ctx: ErrorContext, node: ast.expr, short: str) -> bool:
    if isinstance(node, ast.Call):
        return (dotted(node.func) or "").rpartition(".")[2] == short
    return isinstance(node, ast.Name) and (ctx.type_of(node.id) or "").endswith("." + short)


def _fields(ctx: ErrorContext, caller: Location, node: ast.expr,
            qualified: str) -> dict[str, Value] | None:
    """The fields of the object passed (a name's live value), or of the notebook's one
    other instance of its class: each described, read from its ``__dict__``."""
    if isinstance(node, ast.Name):
        fields = ctx.fields_at(caller, node.id)
        if fields:
            return fields
    found = [instance_fields(value) for _, value in ctx.globals_of_type(qualified)]
    described = [f for f in found if f]
    return described[0] if len(described) == 1 else None


def _is_dataclass(node: ast.ClassDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if (dotted(target) or "").rpartition(".")[2] == "dataclass":
            return True
    return False


def _annotations(definition: ast.ClassDef) -> dict[str, str]:
    """A class body's annotated fields, in order, with their annotations' text."""
    return {statement.target.id: ast.unparse(statement.annotation)
            for statement in definition.body
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)}


def _register_fix(ctx: ErrorContext, site: _static_site.JitSite, parameter: str,
                  short: str, arrays: list[str]) -> Fix | None:
    jax = ctx.alias("jax")
    found = _static_site.latest_top_level(ctx, ast.ClassDef, short)
    if jax is None or found is None or not _is_dataclass(found[1]):
        return None
    place, definition = found
    declared = list(_annotations(definition))
    if not declared or not set(arrays) <= set(declared):
        return None  # fields set outside the dataclass's declaration: not read here
    meta = [name for name in declared if name not in arrays]
    data = [name for name in declared if name in arrays]
    registration = (f"{jax}.tree_util.register_dataclass({short}, data_fields={data!r}, "
                    f"meta_fields={meta!r})")
    positional = [a.arg for a in [*site.func.args.posonlyargs, *site.func.args.args]]
    index = positional.index(parameter) if parameter in positional else None
    lineno = site.location.lineno

    def unstatic(source: str) -> str:
        from jax_nbhelp.rewrite.remove_static_arg import remove_static_arg

        return remove_static_arg(source, lineno, site.function, parameter, index)

    return rewrite_fix(
        ctx, site.location, unstatic, also=((place, _registered(short, registration)),),
        label=f"Trace {parameter}'s arrays",
        summary=(f"Register {short} as a pytree ({_tracing.quoted(data)} as data, the other "
                 f"fields as metadata) and stop marking {parameter} static in "
                 f"{site.function}'s jit; then re-run."),
        safety=(f"Same values: {site.function} reads the same fields, with "
                f"{_tracing.quoted(data)} traced like any array argument"
                + (f" and {_tracing.quoted(meta)} still static" if meta else "") + "."),
        safe=True)


def _registered(name: str, registration: str) -> Callable[[str], str]:
    """The rewrite writing ``registration`` on the line after ``class name``'s body."""

    def transform(source: str) -> str:
        parsed = parsed_source(source)
        if parsed is None:
            raise CannotRewrite("the cell is not plain Python jax_nbhelp can edit")
        found = [n for n in parsed[0].body if isinstance(n, ast.ClassDef) and n.name == name]
        if not found or found[-1].end_lineno is None:
            raise CannotRewrite(f"class {name} is no longer in the cell")
        lines = source.split("\n")
        end = found[-1].end_lineno
        lines[end:end] = ["", registration]
        return "\n".join(lines)

    return transform


# -- a pytree's aux data ----------------------------------------------------------------------

def _metadata(ctx: ErrorContext, caller: Location | None) -> Diagnosis | None:
    line = f"`{caller.line.strip()}`{_entry.at(caller)}" if caller is not None else "The call"
    found = _aux_class(ctx, caller) if caller is not None else None
    if found is None:
        explanation = (f"{line} passes a pytree whose aux data (what tree_flatten returns "
                       "besides its children) holds an array. jit compares aux data with == "
                       "against what it compiled for, and == on arrays is elementwise: there "
                       "is no single True or False.")
    else:
        name, aux, arrays = found
        held = (f"; {_tracing.quoted(arrays)} "
                f"{'holds an array' if len(arrays) == 1 else 'hold arrays'}" if arrays else "")
        explanation = (f"{line} passes a {name}, whose tree_flatten returns `{aux}` as aux "
                       f"data{held}. jit compares aux data with == against what it compiled "
                       "for, and == on arrays is elementwise: there is no single True or False.")
    notes = ("Return arrays among the children (the first element of tree_flatten's result) "
             "and keep only hashable settings in the aux data; tree_unflatten then takes them "
             "from children.",)
    return _entry.diagnosis(ctx, __name__, explanation, location=caller, notes=notes)


def _aux_class(ctx: ErrorContext, caller: Location) -> tuple[str, str, list[str]] | None:
    """The pytree class the call passes whose ``tree_flatten`` returns aux data naming an
    array field: its name, the aux expression, and those fields."""
    parsed = _tracing.parse(caller.source)
    if parsed is None:
        return None
    tree, _ = parsed
    on_line = [n for n in ast.walk(tree) if getattr(n, "lineno", 0) == caller.lineno]
    names = {n.id: (ctx.type_of(n.id) or "").rpartition(".") for n in on_line
             if isinstance(n, ast.Name)}
    made = {n.func.id for n in on_line if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name)}  # `Pair(...)` built in the call
    candidates = [(name, kind[2]) for name, kind in sorted(names.items())
                  if kind[0] == "__main__"] + [(None, name) for name in sorted(made)]
    for name, short in candidates:
        found = _static_site.latest_top_level(ctx, ast.ClassDef, short)
        flatten = next((n for n in found[1].body if isinstance(n, ast.FunctionDef)
                        and n.name == "tree_flatten"), None) if found is not None else None
        returns = [n for n in ast.walk(flatten) if isinstance(n, ast.Return)] if flatten else []
        if found is None or len(returns) != 1 or not isinstance(returns[0].value, ast.Tuple) \
                or len(returns[0].value.elts) != 2:
            continue
        aux = returns[0].value.elts[1]
        read = {n.attr for n in ast.walk(aux) if isinstance(n, ast.Attribute)
                and isinstance(n.value, ast.Name) and n.value.id == "self"}
        fields = (ctx.fields_at(caller, name) or {}) if name is not None else {}
        arrays = sorted(f for f in read if f in fields and fields[f].kind in _ARRAYS)
        if arrays or (name is None and read):
            return short, ast.unparse(aux), arrays
    return None
