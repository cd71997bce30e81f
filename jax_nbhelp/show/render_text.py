"""Plain-text rendering: terminal IPython, logs, and the text/plain part of every bundle.

It lays out the card's view (``show/view.py``) as text: every sentence comes from there.
"""

from __future__ import annotations

import textwrap
from functools import lru_cache

from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.core.protocol import DIAGNOSIS_MIME
from jax_nbhelp.show.view import CardView, PlaceView, card_view

MIME_TYPE = DIAGNOSIS_MIME  # the bundle's (core/protocol.py)


@lru_cache(maxsize=512)
def _wrap(text: str, indent: str = "  ") -> str:
    # cached: most of a diagnosis's text (why, the fixes' summaries) is the same at every
    # later error, and textwrap is the slowest part of the text form
    return textwrap.fill(text, width=92, initial_indent=indent, subsequent_indent=indent)


def _place_lines(place: PlaceView) -> list[str]:
    lines = [f"{place.heading} {place.label}{place.within}"]
    if place.line:
        lines.append(f"  --> {place.line.strip()}")
    return lines


def render_diagnosis(diagnosis: Diagnosis, view: CardView | None = None) -> str:
    """The diagnosis as text; ``view``: its card view, when the caller has it already."""
    view = view or card_view(diagnosis)
    lines = [f"jax_nbhelp [{diagnosis.code}] {diagnosis.title}", ""]
    lines.append(_wrap(diagnosis.explanation))
    if view.places:
        lines.append("")
    for place in view.places:
        lines += _place_lines(place)
    if diagnosis.general:
        return "\n".join(lines + _general_lines(diagnosis, view))
    lines += ["", "Why:", _wrap(diagnosis.why)]
    for note in diagnosis.notes:
        lines += ["", _wrap("Note: " + note)]
    if view.fixes:
        lines += ["", view.text_fixes_heading]
        for fix in view.fixes:
            first, *rest = fix.text.split("\n")
            lines.append(_wrap(first, "  ").replace("\n  ", "\n       "))
            lines += [_wrap(line, "       ") for line in rest]
    elif view.banner:
        lines += ["", _wrap(view.banner, "")]
    return "\n".join(lines)


def _general_lines(diagnosis: Diagnosis, view: CardView) -> list[str]:
    """The general view's rest: what the line worked on, JAX's suggestions, its page."""
    lines: list[str] = []
    if diagnosis.values:
        width = max(len(text) for text, _ in diagnosis.values)
        lines += ["", "On that line:"]
        lines += [f"  {text.ljust(width)}  {summary}" for text, summary in diagnosis.values]
    if view.hints_line:
        lines += ["", _wrap(view.hints_line)]
    if diagnosis.doc_url:
        lines += ["", f"  See {diagnosis.doc_url}"]
    if view.general_note:
        lines += ["", _wrap(view.general_note)]
    return lines


def render_catalog(entries: list[tuple[str, str, str]]) -> str:
    width = max((len(name) for _, name, _ in entries), default=0)
    return "\n".join(f"{code}  {name.ljust(width)}  {title}" for code, name, title in entries)
