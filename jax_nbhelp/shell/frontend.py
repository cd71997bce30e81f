"""What the JupyterLab extension asks the kernel: is a diagnosis still known, apply its fix.

Every diagnosis shown gets a card id, carried in its bundle (``card_id``) with the kernel
process's ``session``. The extension runs ``jax_nbhelp.shell.frontend.status(card_id)`` or
``apply(card_id, number)`` as an execute request that stores no history (a fix takes no
execution count), and reads the one ``RESULT_MIME`` display the call makes; what the fix
prints arrives as the request's own output. A card id the kernel does not know (it
restarted) is answered ``known: false``, never an error.
"""

from __future__ import annotations

from typing import Any

from jax_nbhelp.core.model import FixProgress, Progress
from jax_nbhelp.core.protocol import PROGRESS_MIME, RESULT_MIME
from jax_nbhelp.core.session import current
from jax_nbhelp.show.bundle import not_applied_json, result_json
from jax_nbhelp.show.view import check_number

__all__ = ["PROGRESS_MIME", "RESULT_MIME", "apply", "kept_mode", "result_json", "status"]


def _answer(payload: dict[str, Any]) -> None:
    from IPython.display import display

    display({RESULT_MIME: payload, "text/plain": ""}, raw=True)


def _held(card_id: object, session: object) -> Any:
    """The diagnosis ``card_id`` if this kernel process made it, else None.

    ``session`` is the one the card's bundle carries: a bundle from another kernel (a
    saved notebook, a copied output, a forged one) is not this kernel's even when its id
    happens to be known here. Whatever the arguments are, this never raises."""
    held = current()
    if not isinstance(card_id, str) or (session is not None and session != held.id):
        return None
    return held.cards.get(card_id)


def kept_mode() -> None:
    """Answer the interpret mode this kernel keeps on "from now on" (``mode``: its name for
    ``%jax_nbhelp interpret``, or None): the doctor writes it into a repaired notebook."""
    from jax_nbhelp.jaxapi import interpret_modes

    _answer({"known": True, "mode": interpret_modes.session_mode() or None})


def status(card_id: str, session: str | None = None) -> None:
    """Answer whether this kernel still holds the diagnosis ``card_id`` (of ``session``)."""
    _answer({"known": _held(card_id, session) is not None, "session": current().id})


def apply(card_id: str, number: int, session: str | None = None) -> None:
    """Apply fix ``number`` (1-based) of the diagnosis ``card_id`` (made in ``session``)
    and answer its outcome; a card this kernel did not make is answered ``known: false``."""
    diagnosis = _held(card_id, session)
    if diagnosis is None:
        _answer({**not_applied_json(False), "session": current().id})
        return
    if type(number) is not int or not 1 <= number <= len(diagnosis.fixes):
        _answer(not_applied_json(True, f"there is no fix {number}"))
        return
    fix = diagnosis.fixes[number - 1]
    held = current()
    result = fix.apply(progress=_progress_display(card_id, number), session=held)
    _answer(result_json(result, fix=fix, session=held, check=check_number(diagnosis)))


def _progress_display(card_id: str, number: int) -> Progress:
    """Publish each report of fix ``number`` as PROGRESS_MIME (from the progress thread)."""
    from jax_nbhelp.show.progress_bar import UpdatedDisplay

    shown = UpdatedDisplay()

    def publish(now: FixProgress) -> None:
        shown.publish({PROGRESS_MIME: {"card_id": card_id, "fix": number, **now.to_json()},
                       "text/plain": ""})

    return publish
