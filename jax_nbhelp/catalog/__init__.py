"""The catalog: one module per diagnosis, found by listing this package.

Each module defines ``CODE`` (stable, never reused), ``NAME`` (the pattern, kebab-case),
``TITLE``, ``TRIGGERS`` (text every error it claims carries: a message fragment or an
exception class name; listed in ``index.json`` by ``python -m jax_nbhelp.diagnosis.catalog_index``),
``EXAMPLES`` (failing and fixed cells, run by the catalog test) and
``diagnose(ctx) -> Diagnosis | None``, which returns None early when the error is not its own.
Modules must not import jax at import time: importing jax_nbhelp stays cheap.
"""
