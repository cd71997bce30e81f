"""The card as HTML: pure functions from the model to escaped markup.

The static copy that a saved notebook, nbconvert or a notebook viewer shows without a kernel
(the live card is the JupyterLab extension's TypeScript card). Every string that can come
from the user's code, the exception or JAX goes through ``esc``; the markup is plain
semantic HTML, so it stays readable where a sanitizer drops the ``<style>``.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.show.card.styles import CARD_CSS, hide_rules
from jax_nbhelp.show.view import CardView, FixView, OutcomeView, PlaceView, card_view

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def esc(text: object) -> str:
    """``text`` as HTML text: ``<script>`` shows as the characters, never runs."""
    return html.escape(str(text), quote=True)


_INLINE_CODE = re.compile(r"`([^`\n]+)`")


def inline(text: object) -> str:
    """``text`` as HTML with its `inline code` as code: the one text format of every card
    (the text form keeps the backticks). Escaped first, so nothing in it is markup."""
    return _inline(str(text))


@lru_cache(maxsize=512)
def _inline(text: str) -> str:
    # cached: the catalog's sentences come back at every later error
    return _INLINE_CODE.sub(r"<code>\1</code>", esc(text))


def strip_ansi(text: str) -> str:
    """Remove the terminal colour codes IPython puts in tracebacks."""
    return _ANSI.sub("", text)


def style_tag() -> str:
    return f"<style>{CARD_CSS}</style>"


def source_window(place: PlaceView) -> str:
    """The place's lines, numbered, the line itself marked."""
    width = len(str(place.window[-1][0]))
    rows = []
    for number, text in place.window:
        hit = number == place.lineno
        mark = "→" if hit else " "
        css = "jnh-line jnh-hit" if hit else "jnh-line"
        rows.append(
            f'<span class="{css}"><span class="jnh-ln">{number:>{width}} {mark} </span>'
            f"{esc(text)}</span>"
        )
    return '<pre class="jnh-src">' + "\n".join(rows) + "</pre>"


def place_html(place: PlaceView) -> str:
    return (f'<div class="jnh-heading">{esc(place.heading)} <span class="jnh-muted">'
            f"{esc(place.label + place.within)}</span></div>" + source_window(place))


def preview_html(fix: FixView) -> str:
    """A fix's preview line by line, diff lines coloured; its text is exactly the preview."""
    rows = []
    for line in fix.preview.split("\n"):
        if line.startswith("+") and not line.startswith("+++"):
            css = "jnh-add"
        elif line.startswith("-") and not line.startswith("---"):
            css = "jnh-del"
        elif line.startswith("@@"):
            css = "jnh-hunk"
        else:
            css = ""
        rows.append(f'<span class="jnh-line {css}">{esc(line)}</span>' if css else esc(line))
    return '<pre class="jnh-preview">' + "\n".join(rows) + "</pre>"


def safety_html(fix: FixView) -> str:
    """Whether the fix changes what the program computes, then why (what the card has not
    said above it)."""
    css = "jnh-safe" if fix.safe else "jnh-unsafe"
    return (f'<div class="jnh-text"><span class="{css}">{esc(fix.badge)}</span> '
            f"{inline(fix.safety)}</div>")


def fix_details_html(fix: FixView) -> str:
    """What a fix does, how safe it is and exactly what it runs."""
    parts = [f'<div class="jnh-text">{inline(fix.summary)}</div>', safety_html(fix)]
    if fix.unavailable:
        parts.append(f'<div class="jnh-text jnh-unavailable">{inline(fix.unavailable)}</div>')
    if fix.long:
        parts.append(f'<div class="jnh-text jnh-estimate">{inline(fix.long)}</div>')
    parts.append('<div class="jnh-muted">What it runs:</div>' + preview_html(fix))
    return '<div class="jnh-body">' + "".join(parts) + "</div>"


def fix_html(fix: FixView) -> str:
    """A fix in the details: its title, what it does, how safe, what it runs."""
    status = "" if fix.available else " (cannot apply here)"
    return (f'<div class="jnh-fix"><div class="jnh-fix-title">{esc(fix.heading)}{status}</div>'
            f"{fix_details_html(fix)}</div>")


def glance_html(diagnosis: Diagnosis, view: CardView | None = None) -> str:
    """The top of every card: the title and code, then the cause in one sentence with its
    place (the error line itself sits right above the card, in the traceback)."""
    view = view or card_view(diagnosis)
    # a static card cannot link to the place: it names it unless the cause does
    place = (f' <span class="jnh-muted jnh-place">({esc(view.place)})</span>'
             if view.place and not view.place_named else "")
    parts = [
        f'<div class="jnh-title" role="heading" aria-level="3">{esc(view.title)} '
        f'<span class="jnh-code">{esc(view.code_label)}</span></div>',
        f'<div class="jnh-text jnh-cause">{inline(view.cause)}{place}</div>',
    ]
    if view.banner:
        kind = {"hidden": " jnh-hidden-fixes", "general": " jnh-general"}.get(
            view.banner_kind or "", "")
        parts.append(f'<div class="jnh-text jnh-muted{kind}">{esc(view.banner)}</div>')
    return '<div class="jnh-body">' + "".join(parts) + "</div>"


def details_html(diagnosis: Diagnosis, view: CardView | None = None) -> str:
    """Everything past the glance, closed: the error line, the whole explanation, where
    with its lines, why, the notes, and each fix's safety and exactly what it runs (a
    safety sentence the fixes share said once)."""
    view = view or card_view(diagnosis)
    parts = [f'<div class="jnh-error">{esc(diagnosis.error)}</div>',
             f'<div class="jnh-text">{inline(diagnosis.explanation)}</div>']
    parts += [place_html(place) for place in view.places]
    parts.append(f'<div class="jnh-heading">Why:</div><div class="jnh-text">'
                 f"{inline(diagnosis.why)}</div>")
    parts += [f'<div class="jnh-text"><strong>Note:</strong> {inline(note)}</div>'
              for note in diagnosis.notes]
    if view.shared_line:
        parts.append(f'<div class="jnh-text jnh-shared">{inline(view.shared_line)}</div>')
    parts += [fix_html(fix) for fix in view.fixes]
    return (f'<details class="jnh-more"><summary>{esc(view.details_summary)}'
            '</summary><div class="jnh-body">' + "".join(parts) + "</div></details>")


def outcome_html(outcome: OutcomeView, *, traceback: str | None = None) -> str:
    """The end of the card: fixed (and how long it took) or not, with the new error.
    A static copy cannot write the notebook: it gives the fixed cells to copy."""
    css = {"fixed": "jnh-ok", "repeated": "jnh-ok jnh-repeated",
           "changed": "jnh-ok jnh-repeated"}.get(outcome.kind, "jnh-fail")
    box = f"<strong>{esc(outcome.headline)}</strong> {esc(outcome.text)}"
    if outcome.error is not None:
        box += f'<div class="jnh-error">{esc(outcome.error)}</div>'
    parts = [f'<div class="jnh-outcome {css}">{box}</div>']
    parts += [f'<div class="jnh-text">{esc(copy.sentence)}</div>'
              f'<pre class="jnh-copy">{esc(copy.source)}</pre>' for copy in outcome.copies]
    if outcome.keep:
        parts.append(f'<div class="jnh-text jnh-keep">{inline(outcome.keep)}</div>')
    if outcome.restored:
        parts.append(f'<div class="jnh-text jnh-muted">{esc(outcome.restored)}</div>')
    if traceback:
        parts.append(f'<details><summary>Traceback of the re-run</summary><pre '
                     f'class="jnh-trace">{esc(strip_ansi(traceback))}</pre></details>')
    if outcome.next:
        parts.append(f'<div class="jnh-text">{esc(outcome.next)}</div>')
    if outcome.check_line:  # a saved copy has no button: the magic checks the kernel
        parts.append(f'<div class="jnh-text jnh-muted">{esc(outcome.check_line)}</div>')
    return '<div class="jnh-body">' + "".join(parts) + "</div>"


def card_html(diagnosis: Diagnosis, outcome: str = "", *, magic_hint: bool = True,
              view: CardView | None = None) -> str:
    """The whole card as static HTML, laid out as the live ones: the glance, the
    recommended fix with its line, the other fixes, the closed details, then ``outcome``.
    A static copy has no buttons: it names the fixes, and the magic applies them."""
    view = view or card_view(diagnosis)
    parts = [glance_html(diagnosis, view)]
    if view.recommended_heading:
        line = (f'<div class="jnh-text jnh-short">{inline(view.recommended_line)}</div>'
                if view.recommended_line else "")
        parts.append(f'<div class="jnh-primary"><span class="jnh-fix-title">'
                     f"{esc(view.recommended_heading)}</span>{line}</div>")
    if view.others:
        names = " · ".join(esc(view.fix(n).heading) for n in view.others)
        parts.append(f'<div class="jnh-text jnh-others"><span class="jnh-muted">'
                     f"{esc(view.others_heading)}:</span> {names}</div>")
    if magic_hint and view.magic_hint:
        parts.append(f'<div class="jnh-text jnh-muted">{inline(view.magic_hint)}</div>')
    parts.append(details_html(diagnosis, view))
    return f'<div class="jnh-card">{"".join(parts)}{outcome}</div>'


def static_html(card_id: str, body: str) -> str:
    """The static copy displayed next to live card ``card_id``, hidden while that card lives."""
    return (f"<style>{CARD_CSS}{hide_rules(card_id)}</style>"
            f'<div class="jnh-static-{esc(card_id)}">{body}</div>')


def diagnosis_html(diagnosis: Diagnosis, view: CardView | None = None) -> str:
    """The ``text/html`` of a diagnosis shown without a widget."""
    return style_tag() + card_html(diagnosis, view=view)
