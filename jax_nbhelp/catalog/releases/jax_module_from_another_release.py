"""An import of a JAX module that the installed release does not have (or no longer has):
``from jax.config import config``, ``jax.experimental.maps`` / ``xmap``.

Python's import system raises ``ModuleNotFoundError: No module named 'jax.config'``, or
``ImportError: cannot import name 'maps' from 'jax.experimental'``. Tutorials and libraries
written for older releases import these modules on their first line, so the error is the
first thing a notebook shows.

Reports: StevePny/DataAssimBench#41, CMSL-HKUST/jax-am#33 (``cannot import name 'config' from
'jax.config'``), Dipolar-Quantum-Gases/jaxfit#4, scverse/pertpy#687 (``No module named
'jax.config'``; the fix in each is ``from jax import config``), xai-org/grok-1#350,
NVIDIA/JAX-Toolbox#962 (``No module named 'jax.experimental.maps'``), scverse/pertpy#675
(``cannot import name 'maps' from 'jax.experimental'``); for a name JAX moved,
apax-hub/apax#419 (``from jax import ops, tree_map, vmap``; the answer was to import
tree_map from jax.tree_util), jax-md/jax-md#345 and LouisDesdoigts/dLux#287 (``cannot import
name 'tree_map' from 'jax'`` inside a library); for a module JAX moved, jax-ml/jax#372,
jdtoscano94/NABLA-SciML#4 and probml/probml-utils#33 (``cannot import name 'optimizers' from
'jax.experimental'``; it lives in ``jax.example_libraries`` since jax 0.2.25).
"""

from __future__ import annotations

import re

from jax_nbhelp.catalog import _entry, _jax_names, _renames, _tracing
from jax_nbhelp.catalog._example import NO_FIX, Example
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH213"
TITLE = "An import of JAX that this release does not have"

_NO_MODULE = re.compile(r"No module named '(?P<module>jax(?:lib)?(?:\.\w+)*)'")
_INSTALL_PATH = re.compile(r" \((?:/|[A-Za-z]:\\)[^()]*\)$")
_NO_NAME = re.compile(
    r"cannot import name '(?P<name>\w+)' from '(?P<module>jax(?:lib)?(?:\.\w+)*)'")

# Modules older releases had, and what this one offers in their place.
_GONE = {
    "jax.config": ("older releases had a jax.config module holding the config object; this "
                   "one has the object only, as jax.config", "from jax import config"),
    "jax.experimental.maps": ("jax.experimental.maps (xmap, Mesh, thread_resources) was "
                              "removed from JAX", "jax.shard_map replaces xmap, and "
                              "jax.sharding holds Mesh"),
}

# Modules that moved, with where they live now: the import names the new home.
_MOVED_MODULES = {
    f"jax.experimental.{name}": (
        f"jax.example_libraries.{name}",
        f"jax 0.2.25 moved jax.experimental.{name} to jax.example_libraries.{name}, and jax "
        f"0.3.16 removed the old path, which had long been a deprecated alias of it")
    for name in ("optimizers", "stax")
}

EXAMPLES = (
    Example(
        setup=(),
        failing='from jax.config import config\nconfig.update("jax_debug_nans", False)',
        fix="Import config from jax",
        check="config is jax.config",
        fixed=('import jax\nfrom jax import config\nconfig.update("jax_debug_nans", False)',),
    ),
    # A name JAX moved: imported from its new home, under the name the code uses.
    Example(
        setup=(),
        failing="import jax.numpy as jnp\nfrom jax import jit, tree_map\n"
                "doubled = tree_map(lambda v: v * 2, {'a': jnp.ones(2)})",
        fix="Import tree_map from jax.tree_util",
        check="doubled['a'].tolist() == [2.0, 2.0] and callable(jit)",
        fixed=("import jax.numpy as jnp\nfrom jax import jit\n"
               "from jax.tree_util import tree_map\n"
               "doubled = tree_map(lambda v: v * 2, {'a': jnp.ones(2)})",),
    ),
    # A module that moved: the same module from its new home.
    Example(
        setup=(),
        failing="import jax.numpy as jnp\nfrom jax.experimental import optimizers\n"
                "init, update, get = optimizers.sgd(0.1)\nstate = init(jnp.ones(2))",
        fix="Import it from jax.example_libraries",
        check="get(state).tolist() == [1.0, 1.0]",
        fixed=("import jax.numpy as jnp\nfrom jax.example_libraries import optimizers\n"
               "init, update, get = optimizers.sgd(0.1)\nstate = init(jnp.ones(2))",),
    ),
    # The two spellings of importing the removed module; shard_map replaces xmap.
    *(Example(setup=(), failing=line, fix=NO_FIX, check="callable(shard_map)",
              fixed=("import jax\nshard_map = jax.shard_map",))
      for line in ("from jax.experimental.maps import xmap", "from jax.experimental import maps")),
)

WHY = _entry.prose("""
JAX moves and removes modules between releases (deprecated first, then gone). Code written
for another release imports a module path this JAX does not have, and Python stops at the
import, before any of the code runs.
""")


def _missing(ctx: ErrorContext) -> tuple[str, str] | None:
    """The missing JAX module or name (dotted), and how to call it: "module" or "name"."""
    top = ctx.top
    if top.type_name not in {"ModuleNotFoundError", "ImportError"}:
        return None
    found = _NO_MODULE.search(top.message)
    if found is not None:
        return found.group("module"), "module"
    found = _NO_NAME.search(top.message)
    if found is not None:
        dotted = f"{found.group('module')}.{found.group('name')}"
        return dotted, "module" if dotted in _GONE or dotted in _MOVED_MODULES else "name"
    return None


TRIGGERS = ("ModuleNotFoundError", "ImportError")


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    missing = _missing(ctx)
    if missing is None:
        return None
    module, kind = missing
    location = ctx.deepest_user_location()
    subject = _tracing.quoted_line(location, "An import")
    history, instead = _GONE.get(module, (f"this JAX has no {kind} {module}", ""))
    moved = next(((old, *_MOVED_MODULES[old]) for old in _MOVED_MODULES
                  if module == old or module.startswith(old + ".")), None)
    if moved is not None:
        history = moved[2]
    owner, _, name = module.rpartition(".")
    row = _renames.moved(owner, name) or _renames.gone(owner, name)
    if kind == "name" and row is not None:
        history = row.history
    explanation = f"{subject} imports {module}, which this JAX release does not have: {history}."
    fixes: tuple[Fix, ...] = ()
    notes: list[str] = []
    home = _new_home(row) if kind == "name" and isinstance(row, _renames.Moved) else None
    if module == "jax.config" and location is not None:
        fixes = (_config_fix(ctx, location),)
    elif moved is not None and location is not None:
        fixes = (_moved_module_fix(ctx, location, moved[0], moved[1]),)
    elif home is not None and location is not None:
        fixes = (_moved_fix(ctx, location, owner, name, *home),)
    elif instead:
        notes.append(f"In this release: {instead}.")
    else:
        notes.append("The code was written for another JAX release: check its requirements "
                     "for the JAX version it expects, or find the module's new home in JAX's "
                     "changelog.")
    # Python appends the package's install path to "cannot import name": not the user's
    # business, and different on every machine.
    error = _INSTALL_PATH.sub("", ctx.top.summary)
    return _entry.diagnosis(ctx, __name__, explanation, location=location, fixes=fixes,
                            notes=notes, error=error)


def _new_home(row: _renames.Moved) -> tuple[str, str] | None:
    """The module and name to import the moved name from, when the installed JAX has them:
    the same name elsewhere (``jax.tree_util``, ``tree_map``) when the row knows one, else the
    new spelling (``jax.tree``, ``map``)."""
    if row.import_from is not None and _jax_names.lookup(row.import_from, row.name) is not None:
        return row.import_from, row.name
    dotted = f"{row.target_module}.{row.target}"
    home, _, new_name = dotted.rpartition(".")
    parent, _, leaf = home.rpartition(".")
    is_module = home == row.target_module or _jax_names.is_submodule(parent, leaf)
    if not is_module or _jax_names.lookup(row.target_module, row.target) is None:
        return None
    return home, new_name


def _moved_fix(ctx: ErrorContext, location: Location, module: str, name: str, home: str,
               new_name: str) -> Fix:
    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.from_import_moved import import_moved_name

        return import_moved_name(source, location.lineno, module, name, home, new_name)

    row = _renames.moved(module, name)
    return rewrite_fix(
        ctx, location, transform,
        label=f"Import {name} from {home}",
        summary=(f"Import {name} from {home}" + (f" (as {new_name}, under the name {name})"
                 if new_name != name else "") + ", so the rest of the code is unchanged; then "
                 "re-run."),
        safety=row.safety if row is not None else "The same function under its new home.",
        safe=True,
    )


def _moved_module_fix(ctx: ErrorContext, location: Location, old: str, new: str) -> Fix:
    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.moved_module_import import import_moved_module

        return import_moved_module(source, location.lineno, old, new)

    home = new.rpartition(".")[0]
    return rewrite_fix(
        ctx, location, transform, label=f"Import it from {home}",
        summary=(f"Import {old.rpartition('.')[2]} from {home}, where {old} lives now, under "
                 "the names the code uses; then re-run."),
        safety=f"Same module: {old} was an alias of {new}, so the code computes the same.",
        safe=True)


def _config_fix(ctx: ErrorContext, location: Location) -> Fix:
    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.jax_config_import import import_config_from_jax

        return import_config_from_jax(source, location.lineno)

    return rewrite_fix(
        ctx, location, transform,
        label="Import config from jax",
        summary="Write `from jax import config`, which binds the same config object; then "
                "re-run.",
        safety="Same object: jax.config is the config that the old module held.",
        safe=True,
    )
