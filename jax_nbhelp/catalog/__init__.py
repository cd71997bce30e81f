"""The catalog: one module per diagnosis, found by listing this package.

Each module defines ``CODE`` (stable, never reused) and ``TITLE`` (its pattern's name is
its file name, kebab-case), ``EXAMPLES`` (failing and fixed cells, run by the catalog test),
``WHY``, and its claim: ``MATCH = Match(text, kind, pattern)`` with
``diagnose(ctx, link[, found])``, or, where a declaration cannot say it, ``TRIGGERS`` (text
every error it claims carries: a message fragment or an exception class name) with
``diagnose(ctx)``, which returns None early when the error is not its own. The triggers
are listed in ``index.json`` by ``python -m jax_nbhelp.diagnosis.catalog_index``.
Modules must not import jax at import time: importing jax_nbhelp stays cheap.
"""
