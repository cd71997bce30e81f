"""From an exception to a ``Diagnosis``: the error's context (its chain, the user's lines and
cells), where it came from, and the engine that asks the catalog. Imports only jaxapi,
rewrite and core; the catalog above it is loaded by name (``catalog_index``).
"""
