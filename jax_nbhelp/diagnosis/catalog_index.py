"""Which catalog entry can claim which error, known without importing the catalog.

Each entry names its triggers (its ``MATCH``'s text, or its ``TRIGGERS``): text that every
error it claims carries, in a message or as an exception class name of the chain.
``catalog/index.json`` lists them per module, so the first error of a session imports only
the entries it may concern (usually one or two of them), not all of them. Regenerate it
after adding or changing an entry: ``python -m jax_nbhelp.diagnosis.catalog_index``;
``--check`` exits 1 when it is out of date (the tests use it). A module missing from the
index is never skipped: the engine then imports the whole catalog.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from types import ModuleType

from jax_nbhelp.diagnosis.match import site_trigger

CATALOG = "jax_nbhelp.catalog"
FOLDER = Path(__file__).resolve().parents[1] / "catalog"
PATH = FOLDER / "index.json"


def module_names() -> list[str]:
    """The catalog's entry modules, sorted, listed without importing any of them: each
    family's folder (``tracing``) holds entries (``tracing.leaked_tracer``);
    ``_``-prefixed modules are shared helpers, not entries."""
    names = []
    for family in pkgutil.iter_modules([str(FOLDER)]):
        if family.name.startswith("_") or not family.ispkg:
            continue
        names += [f"{family.name}.{info.name}"
                  for info in pkgutil.iter_modules([str(FOLDER / family.name)])
                  if not info.name.startswith("_") and not info.ispkg]
    return sorted(names)


def name_of(entry: ModuleType | str) -> str:
    """An entry's pattern name, its module's file name in kebab case
    (``tracing.leaked_tracer`` is ``leaked-tracer``): one name, kept in one place."""
    module = entry if isinstance(entry, str) else entry.__name__
    return module.rsplit(".", 1)[-1].replace("_", "-")


def triggers_of(entry: ModuleType) -> tuple[str, ...]:
    """The text every error the entry claims carries: its ``MATCH``'s, else its
    ``TRIGGERS`` (and its ``SITES``, as the engine looks for them)."""
    match = getattr(entry, "MATCH", None)
    if match is not None:
        return tuple(match.triggers)
    return (*entry.TRIGGERS, *(site_trigger(site) for site in sites_of(entry)))


def sites_of(entry: ModuleType) -> tuple[str, ...]:
    """The raise sites of JAX's an entry declares (``path:function`` under jax/_src): its
    ``MATCH``'s, else its ``SITES``."""
    match = getattr(entry, "MATCH", None)
    return tuple(match.sites if match is not None else getattr(entry, "SITES", ()))


def import_entries(names: Iterable[str]) -> tuple[ModuleType, ...]:
    """The named catalog modules that are entries, imported, in order of their codes."""
    found = [importlib.import_module(f"{CATALOG}.{name}") for name in names]
    return tuple(sorted((module for module in found
                         if hasattr(module, "CODE") and hasattr(module, "diagnose")),
                        key=lambda module: str(module.CODE)))


def contract() -> ModuleType:
    """The catalog's contract fixes for the explained view (``catalog/_contract.py``),
    loaded by name as entries are, so the diagnosis layer imports nothing above it."""
    return importlib.import_module(f"{CATALOG}._contract")


def build() -> dict[str, list[str]]:
    """Module name -> its triggers, read from the imported entries."""
    return {entry.__name__.removeprefix(f"{CATALOG}."): list(triggers_of(entry))
            for entry in import_entries(module_names())}


@cache
def load() -> dict[str, tuple[str, ...]] | None:
    """The index, or None when it is missing, unreadable or does not list every module."""
    try:
        data = json.loads(PATH.read_text(encoding="utf-8"))
        index = {str(name): tuple(str(t) for t in triggers) for name, triggers in data.items()}
    except (OSError, ValueError, AttributeError, TypeError):
        return None
    return index if frozenset(index) == frozenset(module_names()) else None


def modules_for(haystack: str) -> list[str] | None:
    """The catalog modules whose triggers occur in ``haystack`` (None: ask every module)."""
    index = load()
    if index is None:
        return None
    found = haystack.__contains__
    return [name for name, triggers in index.items() if any(map(found, triggers))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the index is stale")
    args = parser.parse_args(argv)
    text = json.dumps(build(), indent=1, sort_keys=True) + "\n"
    if args.check:
        current = PATH.read_text(encoding="utf-8") if PATH.exists() else ""
        if current != text:
            print(f"{PATH} is out of date: run python -m jax_nbhelp.diagnosis.catalog_index")
            return 1
        return 0
    PATH.write_text(text, encoding="utf-8")
    print(f"wrote {PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
