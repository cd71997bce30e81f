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
static. jit then traces the arrays and still compares the other fields.

Fix, for a ``register_pytree_node_class`` class: its ``tree_flatten`` returns the aux items
that hold arrays at the end of its children, and its ``tree_unflatten`` reads them there
(``aux[0]`` becomes ``children[1]``; ``x, = children`` and ``y, = aux`` become ``x, y =
children``), so it builds every object from the same values. Which items hold arrays is read
from the passed object's own fields (or another object of the class a global holds); the
fix is offered only where every aux item is a field read so or a constant, both results are
written as a tuple or list (the aux may be one field), and ``tree_unflatten`` reads them by
constant index or unpacks each once. The class's cell is re-run, and so are the statements
after it that made objects of it, like any fix that edits an earlier cell. Otherwise the
card explains.

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
from dataclasses import dataclass

from jax_nbhelp.catalog import _entry, _scopes, _static_site, _tracing
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
    # An array in a pytree class's aux data: made a child, read from the children.
    Example(
        setup=(TRACING_IMPORTS, _PAIR, "left = Pair(jnp.arange(2.0), jnp.ones(3))\n"
               "right = Pair(jnp.arange(2.0), jnp.ones(3))"),
        failing="second = total(right)",
        fix="Make the arrays children",
        check="float(second) == 4.0 and float(first) == 4.0",
        fixed=(TRACING_IMPORTS, _PAIR.replace("return (self.b,), (self.a,)",
                                              "return (self.b, self.a), None").replace(
            "return cls(aux[0], children[0])", "return cls(children[1], children[0])"),
               "left = Pair(jnp.arange(2.0), jnp.ones(3))\n"
               "right = Pair(jnp.arange(2.0), jnp.ones(3))", "second = total(right)"),
    ),
    # Built in the call, and no global holds one: which aux item is an array is not read.
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
    fixes: list[Fix] = []
    if found is None:
        explanation = (f"{line} passes a pytree whose aux data (what tree_flatten returns "
                       "besides its children) holds an array. jit compares aux data with == "
                       "against what it compiled for, and == on arrays is elementwise: there "
                       "is no single True or False.")
    else:
        held = (f"; {_tracing.quoted(found.arrays)} "
                f"{'holds an array' if len(found.arrays) == 1 else 'hold arrays'}"
                if found.arrays else "")
        explanation = (f"{line} passes a {found.name}, whose tree_flatten returns "
                       f"`{found.aux_text}` as aux data{held}. jit compares aux data with == "
                       "against what it compiled for, and == on arrays is elementwise: there "
                       "is no single True or False.")
        fix = _children_fix(ctx, found)
        if fix is not None:
            fixes.append(fix)
    notes = ("Return arrays among the children (the first element of tree_flatten's result) "
             "and keep only hashable settings in the aux data; tree_unflatten then takes them "
             "from children.",) if not fixes else ()
    return _entry.diagnosis(ctx, __name__, explanation, location=caller, fixes=fixes,
                            notes=notes)


@dataclass(frozen=True)
class _AuxClass:
    """A pytree class whose tree_flatten returns aux data naming an array field."""

    name: str
    place: Location  # the cell of its class statement
    definition: ast.ClassDef
    aux: ast.expr  # the aux expression tree_flatten returns
    children: ast.expr
    aux_text: str
    arrays: list[str]  # the fields the aux names that hold arrays
    fields: dict[str, Value] | None  # the passed instance's fields, where a name holds it


def _aux_class(ctx: ErrorContext, caller: Location) -> _AuxClass | None:
    """The pytree class the call passes whose ``tree_flatten`` returns aux data naming an
    array field."""
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
        flatten = _method(found[1], "tree_flatten") if found is not None else None
        returns = [n for n in ast.walk(flatten) if isinstance(n, ast.Return)] if flatten else []
        if found is None or len(returns) != 1 or not isinstance(returns[0].value, ast.Tuple) \
                or len(returns[0].value.elts) != 2:
            continue
        children, aux = returns[0].value.elts
        read = {n.attr for n in ast.walk(aux) if isinstance(n, ast.Attribute)
                and isinstance(n.value, ast.Name) and n.value.id == "self"}
        fields = ctx.fields_at(caller, name) if name is not None else _an_instance(ctx, short)
        arrays = sorted(f for f in read if f in (fields or {})
                        and (fields or {})[f].kind in _ARRAYS)
        if arrays or (fields is None and read):
            return _AuxClass(short, found[0], found[1], aux, children, ast.unparse(aux),
                             arrays, fields)
    return None


def _an_instance(ctx: ErrorContext, short: str) -> dict[str, Value] | None:
    """The fields of a global instance of the user's class ``short`` (its own ``__dict__``),
    for a call that builds its instance in the call; None where no global holds one."""
    for _, value in ctx.globals_of_type(f"__main__.{short}"):
        return instance_fields(value)
    return None


def _method(definition: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    return next((n for n in definition.body if isinstance(n, ast.FunctionDef)
                 and n.name == name), None)


# -- the fix: the aux data's arrays become children -----------------------------------------

def _children_fix(ctx: ErrorContext, found: _AuxClass) -> Fix | None:
    """tree_flatten returns the aux items that hold arrays at the end of its children, and
    tree_unflatten reads them there; every other read stays where it was. Only where the
    passed instance's fields say which aux items hold arrays and which do not, the children
    and aux are written as tuples (the aux may be one field), and tree_unflatten reads them
    by constant index or unpacks each once."""
    if found.fields is None or not isinstance(found.children, ast.Tuple | ast.List):
        return None
    items = found.aux.elts if isinstance(found.aux, ast.Tuple) else [found.aux]
    held = [_holds_array(item, found.fields) for item in items]
    if None in held or not any(held):
        return None  # an item whose value is not read: which to move is not known
    unflatten = _method(found.definition, "tree_unflatten")
    arguments = unflatten.args.args if unflatten is not None else []
    if unflatten is None or len(arguments) != 3 or unflatten.args.vararg is not None:
        return None
    aux_name, children_name = arguments[1].arg, arguments[2].arg
    count = len(found.children.elts)
    moved = [i for i, h in enumerate(held) if h]
    kept = [i for i, h in enumerate(held) if not h]
    whole = not isinstance(found.aux, ast.Tuple)
    # where each aux item goes: ("children", index) or ("aux", index)
    goes = {i: ("children", count + moved.index(i)) if i in moved else ("aux", kept.index(i))
            for i in range(len(items))}
    code = found.place.source or ""
    edits = _reads_moved(unflatten, code, aux_name, children_name, goes, count, whole)
    if edits is None:
        return None
    text = [_tracing.segment(code, e) for e in found.children.elts]
    new_children = [*text, *(_tracing.segment(code, items[i]) for i in moved)]
    new_aux = ("None" if not kept else _tracing.segment(code, items[kept[0]]) if whole
               else f"({', '.join(_tracing.segment(code, items[i]) for i in kept)}"
                    f"{',' if len(kept) == 1 else ''})")
    flatten_return = next(n for n in ast.walk(_method(found.definition, "tree_flatten"))  # type: ignore[arg-type]
                          if isinstance(n, ast.Return))
    assert flatten_return.value is not None
    listed = ", ".join(new_children)
    edits.append((flatten_return.value, (f"[{listed}]" if isinstance(found.children, ast.List)
                                         else f"({listed})") + f", {new_aux}"))
    transform = _edits(code, edits)
    if transform is None:
        return None
    fields = [items[i].attr for i in moved]  # type: ignore[attr-defined]  # self.field
    one = len(fields) == 1
    return rewrite_fix(
        ctx, found.place, transform, label="Make the arrays children",
        summary=(f"In {found.name}'s tree_flatten, return {_tracing.quoted(fields)} among the "
                 "children instead of the aux data, and read "
                 f"{'it' if one else 'them'} from the children in "
                 "tree_unflatten; then re-run."),
        safety=(f"Same values: tree_unflatten builds each {found.name} from the same values "
                f"as before; jit now traces {_tracing.quoted(fields)} like any array instead "
                f"of comparing {'it' if one else 'them'}."),
        safe=True)


def _holds_array(item: ast.expr, fields: dict[str, Value]) -> bool | None:
    """Whether the aux item ``self.field`` holds an array (None: not a field read, or a
    field the instance does not hold)."""
    if isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name) \
            and item.value.id == "self" and item.attr in fields:
        return fields[item.attr].kind in _ARRAYS
    if isinstance(item, ast.Constant):
        return False
    return None


def _reads_moved(unflatten: ast.FunctionDef, code: str, aux_name: str, children_name: str,
                 goes: dict[int, tuple[str, int]], count: int, whole: bool
                 ) -> list[tuple[ast.AST, str]] | None:
    """The edits of tree_unflatten's reads of the aux data: ``aux[i]`` becomes
    ``children[j]`` (or ``aux[k]``), and ``x, = children`` / ``y, = aux`` unpack the moved
    names with the children; None where the aux or children are read otherwise."""
    parents = _scopes.parents(unflatten)
    edits: list[tuple[ast.AST, str]] = []
    unpack: dict[str, ast.Assign] = {}
    for name in (aux_name, children_name):
        for use in _scopes.loads(unflatten, name):
            parent = parents.get(use)
            if isinstance(parent, ast.Subscript) and parent.value is use \
                    and isinstance(parent.slice, ast.Constant) \
                    and type(parent.slice.value) is int and not (whole and name == aux_name):
                if name == aux_name:
                    if parent.slice.value not in goes:
                        return None
                    where, index = goes[parent.slice.value]
                    edits.append((parent, f"{children_name if where == 'children' else name}"
                                          f"[{index}]"))
            elif isinstance(parent, ast.Assign) and parent.value is use \
                    and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Tuple) \
                    and name not in unpack and all(isinstance(t, ast.Name)
                                                   for t in parent.targets[0].elts):
                unpack[name] = parent
            elif name == aux_name and whole and len(goes) == 1:
                edits.append((use, f"{children_name}[{count}]"))
            else:
                return None
    if _scopes.stores(unflatten, aux_name) or _scopes.stores(unflatten, children_name) \
            or _scopes.read_elsewhere(unflatten, aux_name):
        return None
    if aux_name in unpack:
        if children_name not in unpack:
            return None
        targets = [_tracing.segment(code, t) for t in unpack[aux_name].targets[0].elts]  # type: ignore[attr-defined]
        had = [_tracing.segment(code, t) for t in unpack[children_name].targets[0].elts]  # type: ignore[attr-defined]
        if len(targets) != len(goes) or len(had) != count:
            return None
        into = [*had, *(targets[i] for i in sorted(goes) if goes[i][0] == "children")]
        rest = [targets[i] for i in sorted(goes) if goes[i][0] == "aux"]
        edits.append((unpack[children_name].targets[0],
                      ", ".join(into) + ("," if len(into) == 1 else "")))
        edits.append((unpack[aux_name], "" if not rest else
                      f"{', '.join(rest)}{',' if len(rest) == 1 else ''} = {aux_name}"))
    elif children_name in unpack and any(where == "children" for where, _ in goes.values()):
        return None  # children unpacked, the aux read by index: two ways to keep in step
    return edits


def _edits(code: str, edits: list[tuple[ast.AST, str]]) -> Callable[[str], str] | None:
    """The rewrite making each edit (a one-line node and its new text, "" to drop a whole
    statement's line), last first; None where a node spans lines."""
    ordered = sorted(edits, key=lambda e: (e[0].lineno, e[0].col_offset),  # type: ignore[attr-defined]
                     reverse=True)
    steps = []
    for node, after in ordered:
        if node.end_lineno != node.lineno:  # type: ignore[attr-defined]
            return None
        before = _tracing.segment(code, node, strip=False)
        if after == "" and isinstance(node, ast.stmt):
            line = code.split("\n")[node.lineno - 1]
            if line.strip() != before.strip():
                return None  # another statement shares the line
            steps.append(_tracing.replacing_lines(node.lineno, node.lineno, line, [],
                                                  "the statement"))
        else:
            steps.append(_tracing.replacing(node, before, after))

    def transform(source: str) -> str:
        for step in steps:
            source = step(source)
        return source

    return transform
