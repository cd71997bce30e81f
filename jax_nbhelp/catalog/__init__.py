"""The catalog: one module per diagnosis, found by listing this package.

Each module defines ``CODE`` (stable, never reused), ``NAME`` (the pattern, kebab-case),
``TITLE``, ``TRIGGERS`` (text every error it claims carries: a message fragment or an
exception class name; listed in ``index.json`` by ``python -m jax_nbhelp.catalog_index``),
``EXAMPLES`` (failing and fixed cells, run by the catalog test) and
``diagnose(ctx) -> Diagnosis | None``, which returns None early when the error is not its own.
Modules must not import jax at import time: importing jax_nbhelp stays cheap.
"""

from __future__ import annotations

import pkgutil


def module_names() -> list[str]:
    """The entry modules of this package, sorted, listed without importing any of them
    (``_``-prefixed modules are shared helpers, not entries)."""
    return sorted(info.name for info in pkgutil.iter_modules(__path__)
                  if not info.name.startswith("_"))
