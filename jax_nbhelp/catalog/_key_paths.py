"""JAX's key paths as its messages print them (``[1]['mu']``, ``.site_distance``,
``s[0].n``), read as keys: an int for a position, a str for a dict's key, a ``Field`` for a
named tuple's or dataclass's field."""

from __future__ import annotations

import ast
import re


class Field(str):
    """A key path's ``.name``: a field of a named tuple or dataclass."""


_KEY = re.compile(r"\[(?P<item>[^\]]*)\]|\.(?P<field>\w+)")


def keys(text: str) -> tuple[int | str, ...] | None:
    """``[1]['mu'].n`` as ``(1, 'mu', Field('n'))``; None for a path this does not read
    (the whole text must be keys)."""
    found_keys: list[int | str] = []
    at = 0
    for found in _KEY.finditer(text):
        if found.start() != at:
            return None
        at = found.end()
        if found["field"] is not None:
            found_keys.append(Field(found["field"]))
            continue
        try:
            key = ast.literal_eval(found["item"])
        except (ValueError, SyntaxError):
            return None
        if type(key) not in (int, str):
            return None
        found_keys.append(key)
    return tuple(found_keys) if at == len(text) else None


__all__ = ["Field", "keys"]
