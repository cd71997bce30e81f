"""Show a diagnosis after the traceback, as a mime bundle every frontend can render.

``text/plain`` is what terminal IPython and unknown frontends show;
``application/vnd.jax-nbhelp.diagnosis+json`` carries the same content as data for the
widget and the JupyterLab extension. ``text/html`` is the same explanation as a card.

In a Jupyter kernel the diagnosis is the inline card (``jax_nbhelp.show.card``): a static copy
that saved notebooks keep, then the live card (an anywidget) with one button per fix.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.core.session import Session, current
from jax_nbhelp.show.card.html import diagnosis_html
from jax_nbhelp.show.render_text import MIME_TYPE, render_diagnosis
from jax_nbhelp.show.view import card_view


def diagnosis_bundle(diagnosis: Diagnosis, session: Session | None = None) -> dict[str, Any]:
    """Every form of the card, drawn from one card view; the card is registered in the
    session's card registry (the current session by default)."""
    from jax_nbhelp.jaxapi.jax_probe import versions
    from jax_nbhelp.show.bundle import bundle_json, register

    running = versions()
    view = card_view(diagnosis, running)
    return {
        "text/plain": render_diagnosis(diagnosis, view),
        "text/html": diagnosis_html(diagnosis, view),
        MIME_TYPE: bundle_json(diagnosis, register(diagnosis, session=session), view, session,
                               running),
    }


def presented(diagnosis: Diagnosis, session: Session | None = None) -> Diagnosis:
    """The diagnosis as every form shows it now: without its fixes in classroom mode (of
    ``session``, the current one by default; the card says how many it keeps back), and,
    for an error raised for a Pallas kernel, saying when an interpret mode is on."""
    from jax_nbhelp.jaxapi.interpret_modes import session_note

    if diagnosis.fixes and not (session or current()).show_fixes:
        diagnosis = replace(diagnosis, fixes=(), hidden_fixes=len(diagnosis.fixes))
    note = session_note() if diagnosis.concerns_kernel else None
    if note is not None and note not in diagnosis.notes:
        diagnosis = replace(diagnosis, notes=(*diagnosis.notes, note))
    return diagnosis


def show(diagnosis: Diagnosis, session: Session | None = None) -> None:
    """Display ``diagnosis`` as a card of ``session`` (the current session by default)."""
    from IPython.display import display

    from jax_nbhelp.show.card import show_card, widget_frontend

    session = session or current()
    diagnosis = presented(diagnosis, session)

    if widget_frontend(session.running_shell()):
        try:
            if show_card(diagnosis, session) is not None:
                return
        except Exception as exc:  # the text and HTML below still explain the error
            import sys

            print(f"jax_nbhelp: the card failed ({type(exc).__name__}: {exc}).",
                  file=sys.stderr)
    display(diagnosis_bundle(diagnosis, session), raw=True)
