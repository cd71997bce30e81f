"""The one exception the rewrite helpers raise on purpose."""

from __future__ import annotations


class CannotRewrite(Exception):
    """A fix can't be applied to this source.

    ``str(exc)`` is a complete sentence meant to be shown to the notebook user
    as is, so callers shouldn't need to decorate it.
    """
