"""The card ids of shown diagnoses, and the diagnosis as its mime bundle carries it.

Every diagnosis shown gets a card id, carried in its bundle (``card_id``) with the kernel
process's ``session``; the JupyterLab extension hands the id back to ``shell/frontend.py``
to apply a fix, and a card id this process does not hold is stale.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from jax_nbhelp.core.model import CellEdit, Diagnosis, FixResult
from jax_nbhelp.core.state import STATE, current_shell
from jax_nbhelp.jaxapi import jax_probe

# Diagnoses kept for the frontend, newest last; older cards answer "stale".
_KEEP = 64


def register(diagnosis: Diagnosis, card_id: str | None = None) -> str:
    """Remember ``diagnosis`` under ``card_id`` (a new one by default) and return the id."""
    card_id = card_id or uuid.uuid4().hex[:12]
    STATE.cards[card_id] = diagnosis
    while len(STATE.cards) > _KEEP:
        del STATE.cards[next(iter(STATE.cards))]
    return card_id


def bundle_json(diagnosis: Diagnosis, card_id: str | None) -> dict[str, Any]:
    """The diagnosis as the mime bundle carries it: its JSON, the card id and the session."""
    data = diagnosis.to_json()
    data["card_id"] = card_id
    data["session"] = STATE.session
    data["versions"] = jax_probe.versions()  # for "Copy as Markdown" (a bug report)
    return data


def result_json(result: FixResult, copy: Sequence[CellEdit] = ()) -> dict[str, Any]:
    """A fix's outcome for a frontend; a new error's diagnosis gets a card id of its own.

    ``copy``: the rewritten cells a frontend that cannot edit the notebook gives the user
    to copy (the anywidget card); the JupyterLab extension writes them itself."""
    from jax_nbhelp.show.card.html import strip_ansi

    payload = result.to_json()
    payload["known"] = True
    payload["traceback"] = strip_ansi(result.traceback) if result.traceback else None
    if result.diagnosis is not None:
        payload["diagnosis"] = bundle_json(result.diagnosis, register(result.diagnosis))
    payload["value"] = _plain(result.value) if result.ok and result.value is not None else None
    if copy:
        payload["copy"] = [edit.to_json() for edit in copy]
    return payload


def _plain(value: Any) -> str:
    """The failing cell's last value as IPython would print it (``Out[N]``)."""
    shell = current_shell()
    try:
        data, _ = shell.display_formatter.format(value)
        return str(data.get("text/plain", repr(value)))
    except Exception:
        return repr(value)
