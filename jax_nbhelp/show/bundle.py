"""The card ids of shown diagnoses, and the diagnosis as its mime bundle carries it.

Every diagnosis shown gets a card id, carried in its bundle (``card_id``) with the kernel
process's ``session``; the JupyterLab extension hands the id back to ``shell/frontend.py``
to apply a fix, and a card id this process does not hold is stale.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from jax_nbhelp.core.model import CellEdit, Diagnosis, Fix, FixResult
from jax_nbhelp.core.session import Session, current, current_shell
from jax_nbhelp.jaxapi import jax_probe
from jax_nbhelp.show.card.html import strip_ansi
from jax_nbhelp.show.view import CardView, card_view, not_applied_view, outcome_view


def register(diagnosis: Diagnosis, card_id: str | None = None,
             session: Session | None = None) -> str:
    """Remember ``diagnosis`` in the session's card registry under ``card_id`` (a new one
    by default) and return the id."""
    card_id = card_id or uuid.uuid4().hex[:12]
    (session or current()).cards.add(card_id, diagnosis)
    return card_id


def bundle_json(diagnosis: Diagnosis, card_id: str | None, view: CardView | None = None,
                session: Session | None = None,
                versions: dict[str, str | None] | None = None) -> dict[str, Any]:
    """The diagnosis as the mime bundle carries it: its JSON, the card id, the session and
    its card view (``view``), with the fields older frontends read drawn from that view;
    ``versions``: what the kernel runs (``jax_probe.versions()``, when the caller has them
    already, as the view's Markdown does), for "Copy as Markdown" (a bug report)."""
    versions = versions if versions is not None else jax_probe.versions()
    view = view or card_view(diagnosis, versions)
    data = diagnosis.to_json()
    for fix, shown in zip(data["fixes"], view.fixes, strict=True):
        fix["preview"] = shown.preview
        fix["own_safety"] = shown.safety
    data.update(card_id=card_id, session=(session or current()).id, versions=versions,
                recommended=view.recommended, recommended_why=view.recommended_why,
                cause=view.cause, shared_safety=list(view.shared_safety),
                recommended_line=view.recommended_line, view=view.to_json())
    return data


def result_json(result: FixResult, copy: Sequence[CellEdit] = (),
                fix: Fix | None = None, session: Session | None = None,
                new_view: CardView | None = None,
                versions: dict[str, str | None] | None = None,
                check: int | None = None) -> dict[str, Any]:
    """A fix's outcome for a frontend, with its view; a new error's diagnosis gets a card
    id of its own. ``check``: the number of the card's kernel checkup, offered after a fix
    that ran (``view.check_number``).

    ``copy``: the rewritten cells a frontend that cannot edit the notebook gives the user
    to copy (the anywidget card); the JupyterLab extension writes them itself. ``new_view``:
    the new error's card view, when the caller has computed it already, with the
    ``versions`` it was computed for (so the bundle and its view name the same ones)."""
    payload = result.to_json()
    payload["known"] = True
    payload["traceback"] = strip_ansi(result.traceback) if result.traceback else None
    if result.diagnosis is not None:
        payload["diagnosis"] = bundle_json(result.diagnosis,
                                           register(result.diagnosis, session=session),
                                           new_view, session, versions)
    payload["value"] = _plain(result.value) if result.ok and result.value is not None else None
    if copy:
        payload["copy"] = [edit.to_json() for edit in copy]
    payload["view"] = outcome_view(fix, result, copy if copy else None,
                                   payload["value"], check).to_json()
    return payload


def not_applied_json(known: bool, text: str | None = None) -> dict[str, Any]:
    """The answer to a click the kernel cannot act on: a card it does not hold (``known``
    false: the kernel restarted), or a fix the card lacks (``text`` says so)."""
    answer: dict[str, Any] = {"known": known}
    if known:
        answer.update(ok=False, error=text)
    answer["view"] = (not_applied_view(text) if text else not_applied_view()).to_json()
    return answer


def _plain(value: Any) -> str:
    """The failing cell's last value as IPython would print it (``Out[N]``)."""
    shell = current_shell()
    try:
        data, _ = shell.display_formatter.format(value)
        return str(data.get("text/plain", repr(value)))
    except Exception:
        return repr(value)
