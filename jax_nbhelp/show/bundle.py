"""The card ids of shown diagnoses, and the diagnosis as its mime bundle carries it.

Every diagnosis shown gets a card id, carried in its bundle (``card_id``) with the kernel
process's ``session``; the JupyterLab extension hands the id back to ``shell/frontend.py``
to apply a fix, and a card id this process does not hold is stale.
"""

from __future__ import annotations

import uuid
from typing import Any

from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.core.state import STATE
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
