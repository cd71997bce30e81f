"""An entry's claim, as data: which errors are its own, decided before its ``diagnose`` runs.

An entry that declares ``MATCH = Match(text, kind, pattern, also=...)`` is asked only about
an error whose chain holds an exception whose message carries ``text`` (or, failing that,
one of the texts ``also`` names, in order), or that JAX raised at one of its ``sites`` (a
function of JAX's, whatever its wording), of class ``kind``, where one is named, and fitting
``pattern``, where one is given; its ``diagnose`` then receives that exception, and the
pattern's match when there is a pattern: ``diagnose(ctx, link)`` or
``diagnose(ctx, link, found)``. The texts are the entry's triggers in the catalog's index.
An entry whose claim a declaration cannot state (a class name alone, messages that need
each other) names ``TRIGGERS`` and decides in ``diagnose(ctx)`` itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jax_nbhelp.diagnosis.context import ErrorContext, Link


@dataclass(frozen=True)
class Match:
    """The text every error an entry claims carries in a message (or one of ``also``: the
    same error worded another way, by another release or another path), the class that
    raises it (None: any) and a pattern the message fits (None: no pattern)."""

    text: str
    kind: str | None = None
    pattern: re.Pattern[str] | None = None
    also: tuple[str, ...] = ()
    # JAX's raise sites whose every wording is the entry's to read (``path:function`` under
    # jax/_src, as ``jax_check.raise_site`` names them): its message may be another
    # release's or another path's
    sites: tuple[str, ...] = ()

    @property
    def triggers(self) -> tuple[str, ...]:
        return (self.text, *self.also, *(site_trigger(site) for site in self.sites))

    def arguments(self, ctx: ErrorContext) -> tuple[Link] | tuple[Link, re.Match[str]] | None:
        """What ``diagnose`` receives after the context: the exception, and the pattern's
        match; None when the error is not the entry's."""
        link = next((link for link in map(ctx.find, (self.text, *self.also))
                     if link is not None), None)
        if link is None and self.sites and ctx.raise_site in self.sites:
            link = ctx.top
        if link is None or (self.kind is not None and not link.is_a(self.kind)):
            return None
        if self.pattern is None:
            return (link,)
        found = self.pattern.search(link.message)
        return None if found is None else (link, found)


def site_trigger(site: str) -> str:
    """How a raise site stands among the triggers the engine looks for (``engine.candidates``
    adds the error's own to the text it searches)."""
    return f"site:{site}"
