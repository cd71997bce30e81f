"""The card as HTML: pure functions from the model to escaped markup.

The static copy that a saved notebook, nbconvert or a notebook viewer shows without a kernel
(the live card is the JupyterLab extension's TypeScript card). Every string that can come
from the user's code, the exception or JAX goes through ``esc``; the markup is plain
semantic HTML, so it stays readable where a sanitizer drops the ``<style>``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from functools import lru_cache

from jax_nbhelp.core.model import CellEdit, Diagnosis, Fix, FixResult, Location
from jax_nbhelp.core.protocol import is_top_level
from jax_nbhelp.show.card.styles import CARD_CSS, hide_rules

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


def source_window(location: Location, context: int = 2) -> str:
    """The offending line with ``context`` lines around it, numbered, the line itself marked."""
    lines = location.source.splitlines() if location.source else []
    if 0 < location.lineno <= len(lines):
        first = max(1, location.lineno - context)
        last = min(len(lines), location.lineno + context)
        shown = [(n, lines[n - 1]) for n in range(first, last + 1)]
    else:
        shown = [(location.lineno, location.line)]
    width = len(str(shown[-1][0]))
    rows = []
    for number, text in shown:
        hit = number == location.lineno
        mark = "→" if hit else " "
        css = "jnh-line jnh-hit" if hit else "jnh-line"
        rows.append(
            f'<span class="{css}"><span class="jnh-ln">{number:>{width}} {mark} </span>'
            f"{esc(text)}</span>"
        )
    return '<pre class="jnh-src">' + "\n".join(rows) + "</pre>"


def location_html(heading: str, location: Location, context: int = 2) -> str:
    where = esc(location.label)
    if location.function and not is_top_level(location.function):
        where += f", in <code>{esc(location.function)}</code>"
    return (
        f'<div class="jnh-heading">{esc(heading)} <span class="jnh-muted">{where}</span></div>'
        + source_window(location, context)
    )


def preview_html(fix: Fix) -> str:
    """``fix.preview()`` line by line, diff lines coloured; its text is exactly the preview."""
    rows = []
    for line in fix.preview().split("\n"):
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


def safety_html(fix: Fix, text: str | None = None) -> str:
    """Whether the fix changes what the program computes, then why (``text``: the part of
    its safety the card has not said above, ``Diagnosis.own_safety``)."""
    if fix.safe:
        badge = '<span class="jnh-safe">Safe:</span>'
    else:
        badge = '<span class="jnh-unsafe">Changes what the program computes:</span>'
    return f'<div class="jnh-text">{badge} {inline(fix.safety if text is None else text)}</div>'


def fix_details_html(fix: Fix, safety: str | None = None) -> str:
    """What a fix does, how safe it is and exactly what it runs."""
    parts = [f'<div class="jnh-text">{inline(fix.summary)}</div>', safety_html(fix, safety)]
    if fix.unavailable:
        parts.append(f'<div class="jnh-text jnh-unavailable">Cannot apply here: '
                     f"{inline(fix.unavailable)}</div>")
    parts.append('<div class="jnh-muted">What it runs:</div>' + preview_html(fix))
    return '<div class="jnh-body">' + "".join(parts) + "</div>"


def shown_order(diagnosis: Diagnosis) -> list[int]:
    """The fix numbers in the order every card shows them: the recommended one first
    (``Diagnosis.recommended``), the others as they are numbered."""
    numbers = list(range(1, len(diagnosis.fixes) + 1))
    found = diagnosis.recommended()
    if found is not None:
        numbers.remove(found[0])
        numbers.insert(0, found[0])
    return numbers


def fix_groups(diagnosis: Diagnosis) -> tuple[int | None, list[int], str]:
    """How every card groups the fixes: the recommended one's number (None when none is),
    the others in the order shown, and the heading the others go under."""
    order = shown_order(diagnosis)
    found = diagnosis.recommended()
    if found is None:
        return None, order, "Fixes"
    return found[0], order[1:], "Other fixes"


def fix_html(number: int, fix: Fix, safety: str | None = None) -> str:
    """A fix in the details: its title, what it does, how safe, what it runs."""
    status = " (cannot apply here)" if fix.unavailable else ""
    return (
        f'<div class="jnh-fix"><div class="jnh-fix-title">Fix {number}: {esc(fix.label)}'
        f"{status}</div>{fix_details_html(fix, safety)}</div>"
    )


def glance_html(diagnosis: Diagnosis) -> str:
    """The top of every card: the title and code, then the cause in one sentence with its
    place (the error line itself sits right above the card, in the traceback)."""
    cause = diagnosis.glance()["cause"]
    place = ""
    # the place, unless the sentence names it already (these cards cannot link to it)
    if diagnosis.location is not None and diagnosis.location.label not in cause:
        place = f' <span class="jnh-muted jnh-place">({esc(diagnosis.location.label)})</span>'
    parts = [
        f'<div class="jnh-title" role="heading" aria-level="3">{esc(diagnosis.title)} '
        f'<span class="jnh-code">jax_nbhelp {esc(diagnosis.code)}</span></div>',
        f'<div class="jnh-text jnh-cause">{inline(cause)}{place}</div>',
    ]
    if diagnosis.hidden_fixes:
        from jax_nbhelp.core.classroom import hidden_line

        parts.append(f'<div class="jnh-text jnh-muted jnh-hidden-fixes">'
                     f"{esc(hidden_line(diagnosis.hidden_fixes))}</div>")
    elif diagnosis.general:  # it knows no cause, so it cannot say that no fix is correct
        parts.append(f'<div class="jnh-text jnh-muted jnh-general">{esc(GENERAL_LINE)}</div>')
    elif not diagnosis.fixes:
        parts.append('<div class="jnh-text jnh-muted">No mechanical fix is correct here; the '
                     "explanation says what to change.</div>")
    return '<div class="jnh-body">' + "".join(parts) + "</div>"


GENERAL_LINE = ("General view: no cause claimed, no fix. The details show what the line "
                "worked on and what JAX suggests.")


def recommended_line_html(diagnosis: Diagnosis) -> str:
    """The one line beside the recommended fix's button; empty when none is recommended."""
    line = diagnosis.glance()["recommended_line"]
    return f'<div class="jnh-text jnh-short">{inline(line)}</div>' if line else ""


def details_html(diagnosis: Diagnosis) -> str:
    """Everything past the glance, closed: the error line, the whole explanation, where
    with its lines, why, the notes, and each fix's safety and exactly what it runs (a
    safety sentence the fixes share said once)."""
    parts = [f'<div class="jnh-error">{esc(diagnosis.error)}</div>',
             f'<div class="jnh-text">{inline(diagnosis.explanation)}</div>']
    if diagnosis.location is not None:
        parts.append(location_html("Where:", diagnosis.location))
    if diagnosis.call_site is not None:
        parts.append(location_html("Reached from:", diagnosis.call_site, context=1))
    parts.append(f'<div class="jnh-heading">Why:</div><div class="jnh-text">'
                 f"{inline(diagnosis.why)}</div>")
    parts += [f'<div class="jnh-text"><strong>Note:</strong> {inline(note)}</div>'
              for note in diagnosis.notes]
    shared = diagnosis.shared_safety()
    if shared:
        parts.append(f'<div class="jnh-text jnh-shared">All of these fixes: '
                     f"{inline(' '.join(shared))}</div>")
    parts += [fix_html(number, fix, diagnosis.own_safety(fix))
              for number, fix in enumerate(diagnosis.fixes, 1)]
    summary = ("Details: where it came from, and what the line worked on" if diagnosis.general
               else "Details: why, and what each fix runs")
    return (f'<details class="jnh-more"><summary>{summary}'
            '</summary><div class="jnh-body">' + "".join(parts) + "</div></details>")


def fixed_sources_html(edits: Sequence[CellEdit]) -> str:
    """The rewritten source of each cell a fix changed, to copy into the notebook."""
    return "".join(
        f'<div class="jnh-text">Fixed source of {esc(edit.label)}: copy it into the cell '
        "(jax_nbhelp ran the fix but cannot edit your notebook).</div>"
        f'<pre class="jnh-copy">{esc(edit.source)}</pre>'
        for edit in edits
    )


def outcome_html(fix: Fix, result: FixResult, *, to_copy: Sequence[CellEdit] | None = None,
                 traceback: bool = False) -> str:
    """The end of the card: fixed (and how long it took) or not, with the new error.

    ``to_copy``: the cells whose fixed source differs from the user's cells (default: every
    cell the fix rewrote).
    """
    label = esc(fix.label)
    if to_copy is None:
        to_copy = list(fix.edits)
    if result.ok and result.repeated:
        parts = [
            f'<div class="jnh-outcome jnh-ok jnh-repeated"><strong>⚠ Ran, but not as if '
            f"once.</strong> “{label}” ran without error in {result.seconds:.2f} s, and ran "
            f"again what had run before the error: {esc('; '.join(result.repeated))}.</div>",
            fixed_sources_html(to_copy),
        ]
    elif result.ok:
        parts = [
            f'<div class="jnh-outcome jnh-ok"><strong>✓ Fixed.</strong> “{label}” ran without '
            f"error in {result.seconds:.2f} s.</div>",
            fixed_sources_html(to_copy),
        ]
        if fix.setup_line:
            # a static card cannot write the notebook: the line to paste
            parts.append('<div class="jnh-text jnh-keep">To keep it in the notebook, put '
                         f"<code>{esc(fix.setup_line)}</code> after <code>%load_ext "
                         "jax_nbhelp</code> in its first cell, so that a fresh run of the "
                         "notebook needs no click.</div>")
    elif result.stopped:
        return (f'<div class="jnh-outcome jnh-fail"><strong>■ Stopped.</strong> '
                f"{esc(result.error or '')}</div>")
    else:
        parts = [
            f'<div class="jnh-outcome jnh-fail"><strong>✗ Not fixed.</strong> “{label}” '
            f'failed:<div class="jnh-error">{esc(result.error or "unknown error")}</div></div>'
        ]
        if result.restored:
            parts.append('<div class="jnh-text jnh-muted">Undone: '
                         f"{esc(', '.join(result.restored))} as before the fix.</div>")
        if traceback and result.traceback:
            parts.append(f'<details><summary>Traceback of the re-run</summary><pre '
                         f'class="jnh-trace">{esc(strip_ansi(result.traceback))}</pre></details>')
        if result.diagnosis is not None:
            # a chain: the new error's fixes are built on the code this fix ran
            start = (f" Its fixes start from your code as “{label}” rewrote it."
                     if fix.edits else "")
            parts.append('<div class="jnh-text">jax_nbhelp knows the new error; its '
                         f"diagnosis follows.{start}</div>")
        elif result.traceback:
            parts.append('<div class="jnh-text jnh-muted">jax_nbhelp has no diagnosis for the '
                         "new error.</div>")
    return '<div class="jnh-body">' + "".join(parts) + "</div>"


def card_html(diagnosis: Diagnosis, outcome: str = "", *, magic_hint: bool = True) -> str:
    """The whole card as static HTML, laid out as the live ones: the glance, the
    recommended fix with its line, the other fixes, the closed details, then ``outcome``.
    A static copy has no buttons: it names the fixes, and the magic applies them."""
    parts = [glance_html(diagnosis)]
    recommended, order, heading = fix_groups(diagnosis)
    if recommended is not None:
        fix = diagnosis.fixes[recommended - 1]
        parts.append(f'<div class="jnh-primary"><span class="jnh-fix-title">Recommended: '
                     f"Fix {recommended}: {esc(fix.label)}</span>"
                     f"{recommended_line_html(diagnosis)}</div>")
    if order:
        names = " · ".join(f"Fix {n}: {esc(diagnosis.fixes[n - 1].label)}" for n in order)
        parts.append(f'<div class="jnh-text jnh-others"><span class="jnh-muted">{heading}:'
                     f"</span> {names}</div>")
    if magic_hint and diagnosis.fixes:
        parts.append('<div class="jnh-text jnh-muted">In a running kernel, apply fix N with '
                     "<code>%jax_nbhelp fix N</code>.</div>")
    parts.append(details_html(diagnosis))
    return f'<div class="jnh-card">{"".join(parts)}{outcome}</div>'


def static_html(card_id: str, body: str) -> str:
    """The static copy displayed next to live card ``card_id``, hidden while that card lives."""
    return (f"<style>{CARD_CSS}{hide_rules(card_id)}</style>"
            f'<div class="jnh-static-{esc(card_id)}">{body}</div>')


def diagnosis_html(diagnosis: Diagnosis) -> str:
    """The ``text/html`` of a diagnosis shown without a widget."""
    return style_tag() + card_html(diagnosis)
