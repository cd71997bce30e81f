"""Registering a user's class as a pytree, for the entries whose error is an object of it
passed through jit, grad or vmap (a method under ``@jax.jit`` passes ``self``).

``jax.tree_util.register_dataclass(Cls, data_fields=[...], meta_fields=[...])`` makes JAX
flatten the object into its array fields (traced) and its settings (static, part of the
compiled function's key), and rebuild it with ``Cls(**fields)``. That is right for a class
whose ``__init__`` takes exactly its fields and stores them unchanged (or a dataclass, or an
attribute bag whose ``__init__(self, **fields)`` only stores its keywords), and
it keeps working when the object's fields change later, which a static ``self`` does not.
The fields are read from the live object (its own ``__dict__``, never a property): arrays
and numbers are data; booleans, strings, ``None`` and tuples of them are settings.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.line_values import Value, describe
from jax_nbhelp.diagnosis.safe_eval import CANNOT, Evaluator
from jax_nbhelp.fix.fix_builders import rewrite_fix


@dataclass(frozen=True)
class Registration:
    """How to register the class, and where it is defined."""

    name: str
    location: Location  # the class statement in its cell
    data: tuple[str, ...]
    meta: tuple[str, ...]

    def statement(self, jax: str) -> str:
        return (f"{jax}.tree_util.register_dataclass({self.name}, "
                f"data_fields={list(self.data)!r}, meta_fields={list(self.meta)!r})")


def _kind(value: Value) -> str | None:
    """"data", "meta", or None when the field is neither an array nor a setting."""
    if value.kind in ("array", "numpy", "tracer"):
        return "data"
    if value.summary in ("Python int", "Python float", "Python complex"):
        return "data"
    if value.summary in ("Python bool", "str", "None"):
        return "meta"
    if value.kind == "tuple" and ("str" in value.summary or "bool" in value.summary):
        return "meta"
    if value.kind in ("list", "tuple", "dict"):
        return "data"
    return None


def _class_def(ctx: ErrorContext, name: str) -> tuple[Location, ast.ClassDef] | None:
    """The latest cell that defines ``class name`` at its top level."""
    for number in sorted(ctx.cell_sources, reverse=True):
        parsed = _tracing.parse(ctx.cell_sources[number])
        if parsed is None:
            continue
        for node in parsed[0].body:
            if isinstance(node, ast.ClassDef) and node.name == name:
                place = ctx.cell(number, node.lineno)
                return (place, node) if place is not None else None
    return None


def _stores_its_arguments(node: ast.ClassDef, fields: set[str]) -> bool:
    """Whether the class is a dataclass of exactly these fields, or its ``__init__`` takes
    exactly them and only stores each (``self.x = x``)."""
    if any("dataclass" in ast.unparse(d) for d in node.decorator_list):
        annotated = {s.target.id for s in node.body
                     if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
        return annotated == fields
    init = next((s for s in node.body if isinstance(s, ast.FunctionDef)
                 and s.name == "__init__"), None)
    if init is not None and _stores_keywords(init):
        return True
    if init is None or init.args.vararg or init.args.kwarg or init.args.kwonlyargs:
        return False
    parameters = [a.arg for a in init.args.args[1:]]
    if set(parameters) != fields:
        return False
    stored = set()
    for statement in init.body:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # a docstring
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Attribute)
                and isinstance(statement.value, ast.Name)
                and statement.targets[0].attr == statement.value.id):
            return False
        stored.add(statement.value.id)
    return stored == fields


def _stores_keywords(init: ast.FunctionDef) -> bool:
    """``def __init__(self, **fields): self.__dict__.update(fields)`` (or
    ``vars(self).update(fields)``): an attribute bag that stores whatever keywords it is
    given, so ``Cls(**fields)`` rebuilds any object of it from its own fields."""
    args = init.args
    if args.kwarg is None or args.vararg or args.kwonlyargs or args.posonlyargs \
            or len(args.args) != 1:
        return False
    body = [s for s in init.body
            if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Expr):
        return False
    text = ast.unparse(body[0].value)
    self_name, kwarg = args.args[0].arg, args.kwarg.arg
    return text in (f"{self_name}.__dict__.update({kwarg})", f"vars({self_name}).update({kwarg})")


def registration(ctx: ErrorContext, location: Location, instance: str | None,
                 class_name: str) -> Registration | str:
    """How to register the class of the object ``instance`` names at ``location`` (None: the
    object the line builds, ``Params(2.0, 1.0)``), or why jax_nbhelp cannot say."""
    from jax_nbhelp.jaxapi.jax_probe import attribute

    if attribute("jax.tree_util", "register_dataclass") is None:
        return "this JAX has no jax.tree_util.register_dataclass"
    found = _class_def(ctx, class_name)
    if found is None:
        return f"class {class_name} is not defined in a cell of this notebook"
    place, node = found
    fields = (ctx.fields_at(location, instance) if instance is not None
              else _built_on_line(ctx, location, node))
    if not fields:
        return (f"jax_nbhelp could not read the fields of {instance}" if instance is not None
                else f"jax_nbhelp could not find the {class_name} object on the calling line")
    if not _stores_its_arguments(node, set(fields)):
        return (f"{class_name}.__init__ does more than store its arguments, so JAX could not "
                "rebuild it from its fields")
    kinds = {name: _kind(value) for name, value in fields.items()}
    unknown = [name for name, kind in kinds.items() if kind is None]
    if unknown:
        return (f"{', '.join(unknown)} of {instance} is neither an array nor a setting "
                "(a bool, str or None)")
    return Registration(class_name, place,
                        tuple(n for n, k in kinds.items() if k == "data"),
                        tuple(n for n, k in kinds.items() if k == "meta"))


def _dataclass_init(node: ast.ClassDef) -> ast.FunctionDef | None:
    """The ``__init__`` a ``@dataclass`` without its own writes: its annotated fields in
    order, each default as written (a class variable, ``ClassVar``, or a ``field(...)`` makes
    it None: not read here)."""
    if not any("dataclass" in ast.unparse(d) for d in node.decorator_list) \
            or any(isinstance(s, ast.FunctionDef) and s.name == "__init__" for s in node.body):
        return None
    fields = [s for s in node.body if isinstance(s, ast.AnnAssign)
              and isinstance(s.target, ast.Name)]
    if any("ClassVar" in ast.unparse(f.annotation) or "InitVar" in ast.unparse(f.annotation)
           or (f.value is not None and not isinstance(f.value, ast.Constant)) for f in fields):
        return None
    parameters = ", ".join(
        f"{f.target.id}={ast.unparse(f.value)}" if f.value is not None else f.target.id
        for f in fields if isinstance(f.target, ast.Name))
    made = ast.parse(f"def __init__(self, {parameters}):\n" + "".join(
        f"    self.{f.target.id} = {f.target.id}\n" for f in fields
        if isinstance(f.target, ast.Name)) + "    pass").body[0]
    return made if isinstance(made, ast.FunctionDef) else None


def _built_on_line(ctx: ErrorContext, location: Location,
                   node: ast.ClassDef) -> dict[str, Value] | None:
    """The fields of the object the line builds with ``Cls(...)``, where ``__init__`` only
    stores its arguments: each argument as the line passes it, read in the line's live frame
    without running anything (a default written as a constant where one is not passed)."""
    init = next((s for s in node.body if isinstance(s, ast.FunctionDef)
                 and s.name == "__init__"), None) or _dataclass_init(node)
    parsed = _tracing.parse(location.source)
    frame = ctx.live_frame(location)
    if init is None or parsed is None or frame is None \
            or not _stores_its_arguments(node, {a.arg for a in init.args.args[1:]}):
        return None
    calls = [c for c in ast.walk(parsed[0]) if isinstance(c, ast.Call)
             and isinstance(c.func, ast.Name) and c.func.id == node.name
             and c.lineno <= location.lineno <= (c.end_lineno or c.lineno)]
    if len(calls) != 1:
        return None
    parameters = init.args.args[1:]
    defaults = dict(zip([a.arg for a in parameters[len(parameters) - len(init.args.defaults):]],
                        init.args.defaults, strict=True))
    call = calls[0]
    if len(call.args) > len(parameters) or any(isinstance(a, ast.Starred) for a in call.args) \
            or any(k.arg is None for k in call.keywords):
        return None
    evaluate = Evaluator(frame)
    fields: dict[str, Value] = {}
    for argument in parameters:
        given = _tracing.bind_argument(call, init, argument.arg, skip_first=True) \
            or defaults.get(argument.arg)
        if given is None or (given is defaults.get(argument.arg)
                             and not isinstance(given, ast.Constant)):
            return None
        value = evaluate(given)
        if value is not CANNOT:
            fields[argument.arg] = describe(argument.arg, value)
        elif _tracing.classify(given, ctx, module_level=True) == "array":  # jnp.ones(2)
            fields[argument.arg] = Value(ast.unparse(given), "array", "an array")
        else:
            return None
    return fields


def registration_fix(ctx: ErrorContext, found: Registration, summary: str,
                     safety: str) -> Fix:
    """Register the class right after its definition (``summary`` and ``safety`` may name
    ``{statement}``, ``{data}`` and ``{meta}``); then re-run."""
    jax = ctx.alias("jax") or "jax"
    statement = found.statement(jax)

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.after_class import insert_after_class

        return insert_after_class(source, found.name, statement)

    names = {"statement": statement, "data": ", ".join(found.data) or "none",
             "meta": ", ".join(found.meta) or "none", "name": found.name}
    return rewrite_fix(ctx, found.location, transform,
                       label=f"Register {found.name} as a pytree",
                       summary=summary.format(**names), safety=safety.format(**names),
                       safe=True)


def registration_diagnosis(ctx: ErrorContext, entry: str, explanation: str,
                           location: Location | None, found: Registration | str, *,
                           summary: str, safety: str, not_offered: str, error: str,
                           notes: tuple[str, ...] = ()) -> Diagnosis:
    """An entry's diagnosis of an object JAX cannot take apart: with the registration fix
    (``summary`` and ``safety`` as ``registration_fix`` takes them) where ``found`` is one,
    else with the note ``not_offered``, which names why as ``{why}``."""
    fixes: tuple[Fix, ...] = ()
    if isinstance(found, str):
        notes = (*notes, not_offered.format(why=found))
    else:
        fixes = (registration_fix(ctx, found, summary, safety),)
    return _entry.diagnosis(ctx, entry, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=fixes, notes=notes,
                            error=error)
