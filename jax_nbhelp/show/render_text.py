"""Plain-text rendering: terminal IPython, logs, and the text/plain part of every bundle.

It lays out the card's view (``show/view.py``) as text: every sentence comes from there.
"""

from __future__ import annotations

import textwrap
from functools import lru_cache

from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.core.protocol import DIAGNOSIS_MIME
from jax_nbhelp.show.view import CardView, FixView, PlaceView, card_view

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


# The card's text form stays a glance: this many lines at most where the view allows
# (the title, the cause, the places and a line a fix); the rest is in its details.
CARD_LINES = 15


def render_diagnosis(diagnosis: Diagnosis, view: CardView | None = None,
                     details: bool = False) -> str:
    """The diagnosis as text; ``view``: its card view, when the caller has it already.

    By default the card: the title, the cause in one sentence, where (and the call that
    reached it), and a line a fix (or what stands in their place); notes only while the
    card stays within ``CARD_LINES``. ``details``: all of it, as ``%jax_nbhelp details``
    prints it: the whole explanation, why, every note, and each fix in full."""
    view = view or card_view(diagnosis)
    if details:
        return _details(diagnosis, view)
    cause = view.cause if not diagnosis.hidden_fixes else diagnosis.explanation
    head = [f"jax_nbhelp [{diagnosis.code}] {diagnosis.title}", _wrap(cause)]
    places = [line for place in view.places for line in _place_lines(place)]
    if diagnosis.hidden_fixes:  # classroom mode: the why is what the student reads
        places += ["", "Why:", _wrap(diagnosis.why)]
    # the kernel checkup is listed last, and only while the card stays within its lines
    # (%jax_nbhelp details lists it, and a fix's outcome offers it)
    shown_fixes = [fix for fix in view.fixes if fix.number != view.check]
    if shown_fixes:
        tail = ["", view.text_fixes_heading] + [_fix_line(fix) for fix in shown_fixes]
    elif view.banner:
        tail = ["", _wrap(view.banner, "")]
    else:
        tail = []
    if diagnosis.general and view.hints_line:
        tail += ["", _wrap(view.hints_line)]
    if not view.fixes:  # the fixes' heading says where the rest is
        tail.append(view.text_details_line)
    used = sum(part.count("\n") + 1 for part in [*head, "", *places, *tail])
    if view.check is not None and shown_fixes:
        check = _fix_line(view.fix(view.check))
        if used + check.count("\n") + 1 <= CARD_LINES:
            tail.append(check)
            used += check.count("\n") + 1
    # the rest of the explanation (what to change, where no fix is offered), while it fits
    rest = diagnosis.explanation[len(cause):].strip() if diagnosis.explanation.startswith(
        cause) else ""
    if rest and not view.fixes and used + _wrap(rest).count("\n") + 1 <= CARD_LINES:
        head.append(_wrap(rest))
        used += _wrap(rest).count("\n") + 1
    lines = head + (["", *places] if places else [])
    for number, note in enumerate(diagnosis.notes):
        shown = ([""] if number == 0 else []) + [_wrap("Note: " + note)]
        more = sum(part.count("\n") + 1 for part in shown)
        if used + more > CARD_LINES:
            break
        lines += shown
        used += more
    return "\n".join(lines + tail)


def _fix_line(fix: FixView) -> str:
    return _wrap(fix.line, "  ").replace("\n  ", "\n     ")


def _details(diagnosis: Diagnosis, view: CardView) -> str:
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
