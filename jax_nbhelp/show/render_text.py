"""Plain-text rendering: terminal IPython, logs, and the text/plain part of every bundle."""

from __future__ import annotations

import textwrap
from functools import lru_cache

from jax_nbhelp.core.model import Diagnosis, Location
from jax_nbhelp.core.protocol import DIAGNOSIS_MIME, is_top_level

MIME_TYPE = DIAGNOSIS_MIME  # the bundle's (core/protocol.py)


@lru_cache(maxsize=512)
def _wrap(text: str, indent: str = "  ") -> str:
    # cached: most of a diagnosis's text (why, the fixes' summaries) is the same at every
    # later error, and textwrap is the slowest part of the text form
    return textwrap.fill(text, width=92, initial_indent=indent, subsequent_indent=indent)


def _location_lines(title: str, location: Location) -> list[str]:
    lines = [f"{title} {location.label}" + (f", in {location.function}" if
             location.function and not is_top_level(location.function) else "")]
    if location.line:
        lines.append(f"  --> {location.line.strip()}")
    return lines


def render_diagnosis(diagnosis: Diagnosis) -> str:
    lines = [f"jax_nbhelp [{diagnosis.code}] {diagnosis.title}", ""]
    lines.append(_wrap(diagnosis.explanation))
    if diagnosis.location is not None:
        lines += ["", *_location_lines("Where:", diagnosis.location)]
    if diagnosis.call_site is not None:
        lines += _location_lines("Reached from:", diagnosis.call_site)
    if diagnosis.general:
        return "\n".join(lines + _general_lines(diagnosis))
    lines += ["", "Why:", _wrap(diagnosis.why)]
    for note in diagnosis.notes:
        lines += ["", _wrap("Note: " + note)]
    if diagnosis.fixes:
        lines += ["", "Fixes (run one with %jax_nbhelp fix N; preview: %jax_nbhelp preview N):"]
        found = diagnosis.recommended()
        for number, fix in enumerate(diagnosis.fixes, 1):
            status = "" if fix.unavailable is None else "  [cannot apply here]"
            if found is not None and number == found[0]:
                status += "  [recommended]"
            lines.append(_wrap(f"{number}. {fix.label}{status}: {fix.summary}", "  ")
                         .replace("\n  ", "\n       "))
            lines.append(_wrap(("Safe: " if fix.safe else "Changes results: ") + fix.safety,
                               "       "))
            if fix.unavailable:
                lines.append(_wrap("Why not: " + fix.unavailable, "       "))
    elif diagnosis.hidden_fixes:
        from jax_nbhelp.core.classroom import hidden_line

        lines += ["", _wrap(hidden_line(diagnosis.hidden_fixes), "")]
    else:
        lines += ["", "No mechanical fix is correct here; the explanation says what to change."]
    return "\n".join(lines)


def _general_lines(diagnosis: Diagnosis) -> list[str]:
    """The general view's rest: what the line worked on, JAX's suggestions, its page."""
    lines: list[str] = []
    if diagnosis.values:
        width = max(len(text) for text, _ in diagnosis.values)
        lines += ["", "On that line:"]
        lines += [f"  {text.ljust(width)}  {summary}" for text, summary in diagnosis.values]
    if diagnosis.hints:
        lines += ["", _wrap("JAX suggests: " + " ".join(diagnosis.hints))]
    if diagnosis.doc_url:
        lines += ["", f"  See {diagnosis.doc_url}"]
    lines += ["", _wrap("(jax_nbhelp's general view: no entry of its catalog knows this "
                        "error, so it claims no cause and offers no fix.)")]
    return lines


def render_catalog(entries: list[tuple[str, str, str]]) -> str:
    width = max((len(name) for _, name, _ in entries), default=0)
    return "\n".join(f"{code}  {name.ljust(width)}  {title}" for code, name, title in entries)
