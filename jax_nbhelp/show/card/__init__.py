"""The inline diagnosis card: one-click fixes in any frontend that runs a Jupyter kernel.

``html`` renders the card as escaped HTML (the static copy a saved notebook keeps); ``live``
is the live card: the JupyterLab extension's own TypeScript card, built as an anywidget
module, for the frontends where that extension does not run. Nothing here imports a widget
library until a card is actually shown in a kernel.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jax_nbhelp.core.model import Diagnosis
    from jax_nbhelp.core.session import Session
    from jax_nbhelp.show.card.live import LiveCard


def widget_frontend(shell: Any) -> bool:
    """True in a Jupyter kernel (comms, hence widgets); False in terminal IPython."""
    return getattr(shell, "kernel", None) is not None


def build_card(diagnosis: Diagnosis, session: Session | None = None) -> LiveCard:
    """The live card for ``diagnosis`` (imports anywidget); ImportError where anywidget or
    the card's module (built with the JupyterLab extension) is missing."""
    from jax_nbhelp.show.card import live

    if not live.built():
        raise ImportError("jax_nbhelp's card module is not built (jax_nbhelp/show/static)")
    return live.LiveCard(diagnosis, session)


def show_card(diagnosis: Diagnosis, session: Session | None = None) -> LiveCard | None:
    """Display the card (static copy + live widget); None when it cannot be built, and the
    static card with its text shows instead."""
    try:
        card = build_card(diagnosis, session)
    except ImportError:
        return None
    card.display()
    return card
