"""What a notebook's dotted names (``pltpu.emit_pipeline``) mean, looked up without running
user code: through the modules the user bound and the JAX modules already imported, never
through a user object's attributes."""

from __future__ import annotations

import ast
import difflib
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Iterator
from types import ModuleType

from jax_nbhelp.catalog import _tracing
from jax_nbhelp.core.model import Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.diagnosis.provenance import is_jax_object

# Public JAX modules whose names a notebook reaches (searched for a name it lacks elsewhere).
RELATED = ("jax", "jax.numpy", "jax.lax", "jax.tree", "jax.tree_util", "jax.random",
           "jax.sharding", "jax.experimental.pallas", "jax.experimental.pallas.tpu",
           "jax.experimental.pallas.mosaic_gpu", "jax.experimental.pallas.triton")


def module(name: str) -> ModuleType | None:
    """The imported module ``name`` (None when it is not imported: nothing is imported)."""
    found = sys.modules.get(name)
    return found if isinstance(found, ModuleType) else None


def is_submodule(module_name: str, name: str) -> bool:
    """Whether ``module_name.name`` is a module (imported or not) of the installed JAX."""
    try:
        return importlib.util.find_spec(f"{module_name}.{name}") is not None
    except Exception:
        return False


def lookup(module_name: str, path: str) -> object | None:
    """``module_name`` + ``.path`` (``"jax", "tree.map"``) in the installed JAX, or None."""
    try:
        value: object = importlib.import_module(module_name)
        for part in path.split("."):
            value = getattr(value, part)
    except Exception:
        return None
    return value


def has(owner: ModuleType, name: str) -> bool:
    """Whether the module defines ``name`` (a deprecated name its ``__getattr__`` still
    answers for counts too; looked up without triggering its warning)."""
    deprecated = vars(owner).get("_deprecations")
    return name in vars(owner) or (isinstance(deprecated, dict)
                                   and deprecated.get(name, (None, None))[1] is not None)


def public_names(owner: ModuleType) -> list[str]:
    return sorted(name for name in vars(owner) if not name.startswith("_"))


def close(name: str, candidates: list[str]) -> list[str]:
    return difflib.get_close_matches(name, candidates, n=3, cutoff=0.6)


def spell(ctx: ErrorContext, module_name: str, path: str = "") -> str | None:
    """How the user's namespace reaches ``module_name.path`` (``pltpu.MemorySpace``): through
    the module's own alias, else a bound parent package; None when neither is bound.
    Python's own names (``builtins``) are reached as themselves unless the notebook binds
    that name to something else."""
    if module_name == "builtins":
        return path if path and "." not in path and ctx.type_of(path) is None else None
    parts = module_name.split(".")
    for cut in range(len(parts), 0, -1):
        alias = ctx.alias(".".join(parts[:cut]))
        if alias is not None:
            return ".".join([alias, *parts[cut:], *([path] if path else [])])
    return None


def shown(ctx: ErrorContext, module_name: str, path: str = "") -> str:
    """``spell``, or the module's full name when the namespace does not reach it."""
    return spell(ctx, module_name, path) or ".".join([module_name, *([path] if path else [])])


def resolve(ctx: ErrorContext, dotted: str) -> object | None:
    """The object a dotted name of the user's code names, found through the modules the
    user bound and the classes and functions bound to a name, else through the imports of
    JAX modules in the user's code (a function's own ``import``); None when unknown."""
    head, *rest = dotted.split(".")
    modules = {alias: name for name, alias in ctx.module_aliases.items()}
    value: object | None
    if head in modules:
        value = module(modules[head])
    elif head in ctx.object_names:
        value = by_qualified_name(ctx.object_names[head])
    else:
        value = imported(ctx).get(head)
        if value is None:
            return None
    for part in rest:
        if not isinstance(value, ModuleType):
            return None
        value = vars(value).get(part)
    return value


def imported(ctx: ErrorContext) -> dict[str, object]:
    """Names that the import statements of the user's code bind to JAX modules or to their
    attributes (``from jax.experimental.pallas import mosaic_gpu as plgpu``)."""
    found: dict[str, object] = {}
    for location in user_locations(ctx):
        parsed = _tracing.parse(location.source)
        for node in ast.walk(parsed[0]) if parsed is not None else ():
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname is not None and module(alias.name) is not None:
                        found.setdefault(alias.asname, module(alias.name))
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                owner = module(node.module)
                for alias in node.names if owner is not None else ():
                    value = module(f"{node.module}.{alias.name}") or vars(owner).get(alias.name)
                    if value is not None:
                        found.setdefault(alias.asname or alias.name, value)
    return {name: value for name, value in found.items()
            if (isinstance(value, ModuleType) and value.__name__.split(".")[0] == "jax")
            or is_jax_object(value)}


def by_qualified_name(qualified: str) -> object | None:
    """``jax._src.pallas.mosaic.pipeline.emit_pipeline`` -> the function (modules imported
    already only)."""
    parts = qualified.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        owner = module(".".join(parts[:cut]))
        if owner is None:
            continue
        value: object | None = owner
        for part in parts[cut:]:
            namespace = getattr(value, "__dict__", None)
            value = namespace.get(part) if isinstance(namespace, dict) else None
        return value
    return None


def named(value: object, name: str) -> bool:
    """Whether ``value`` is a JAX function or class called ``name``."""
    return (callable(value) and is_jax_object(value)
            and getattr(value, "__name__", None) == name)


def parameters(value: object) -> dict[str, inspect.Parameter] | None:
    try:
        return dict(inspect.signature(value).parameters)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def takes_any_keyword(params: dict[str, inspect.Parameter]) -> bool:
    return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def user_locations(ctx: ErrorContext) -> Iterator[Location]:
    """The user's lines of the chain, innermost first."""
    for link in ctx.chain:
        for frame in reversed(link.frames):
            if frame.location is not None:
                yield frame.location


def called_function(call: ast.Call) -> ast.expr:
    """What ``call`` calls: ``f`` for ``f(...)`` and for ``functools.partial(f, ...)``."""
    name = dotted(call.func) or ""
    if name.rsplit(".", 1)[-1] == "partial" and call.args:
        return call.args[0]
    return call.func


def call_in_source(ctx: ErrorContext, name: str, keyword: str) -> tuple[object, str] | None:
    """The JAX function called ``name`` that a user line calls with ``keyword=``, and how the
    line spells it (``pltpu.emit_pipeline``)."""
    for location in user_locations(ctx):
        parsed = _tracing.parse(location.source)
        if parsed is None:
            continue
        for node in ast.walk(parsed[0]):
            if not (isinstance(node, ast.Call)
                    and node.lineno <= location.lineno <= (node.end_lineno or node.lineno)
                    and any(k.arg == keyword for k in node.keywords)):
                continue
            spelled = dotted(called_function(node))
            value = resolve(ctx, spelled) if spelled else None
            if spelled is not None and named(value, name):
                return value, spelled
    return None


def method_in_source(ctx: ErrorContext, name: str, keyword: str) -> tuple[object, str] | None:
    """The method of JAX's arrays whose function is called ``name`` (``_sum``) that a user
    line calls with ``keyword=`` (``x.sum(dim=1)``), and how the line spells the call
    (``(...).sum`` where the array is not a dotted name)."""
    array = getattr(sys.modules.get("jax"), "Array", None)
    for location in user_locations(ctx):
        parsed = _tracing.parse(location.source)
        if parsed is None:
            continue
        for node in ast.walk(parsed[0]):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.lineno <= location.lineno <= (node.end_lineno or node.lineno)
                    and any(k.arg == keyword for k in node.keywords)):
                continue
            value = inspect.getattr_static(array, node.func.attr, None) if array else None
            if named(value, name):
                return value, dotted(node.func) or f"(...).{node.func.attr}"
    return None


def array_method(value: object) -> str | None:
    """The name of JAX arrays' method whose function ``value`` is, else None."""
    array = getattr(sys.modules.get("jax"), "Array", None)
    name = getattr(value, "__name__", "")
    attribute = name.lstrip("_")
    return (attribute if array is not None and attribute
            and inspect.getattr_static(array, attribute, None) is value else None)


def in_namespace(ctx: ErrorContext, name: str) -> list[tuple[object, str]]:
    """The JAX functions called ``name`` the notebook reaches (``pl.kernel``, a bare
    ``emit_pipeline`` imported from JAX); none when the notebook binds ``name`` to its own
    function, which may be the one that was called."""
    qualified = ctx.object_names.get(name)
    if qualified is not None and not qualified.startswith(("jax.", "jaxlib.")):
        return []
    found: list[tuple[object, str]] = []
    if qualified is not None:
        value = by_qualified_name(qualified)
        if named(value, name):
            found.append((value, name))
    for module_name, alias in sorted(ctx.module_aliases.items()):
        owner = module(module_name) if module_name.split(".")[0] == "jax" else None
        value = vars(owner).get(name) if owner is not None else None
        if named(value, name) and all(value is not seen for seen, _ in found):
            found.append((value, f"{alias}.{name}"))
    return found
