"""The inline diagnosis card: one-click fixes in any frontend that runs a Jupyter kernel.

``html`` renders the card as escaped HTML (the static copy a saved notebook keeps);
``widget`` builds the live ipywidgets card. Nothing here imports ipywidgets until a card is
actually shown in a kernel.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jax_nbhelp.core.model import Diagnosis
    from jax_nbhelp.show.card.widget import DiagnosisCard


def widget_frontend(shell: Any) -> bool:
    """True in a Jupyter kernel (comms, hence widgets); False in terminal IPython."""
    return getattr(shell, "kernel", None) is not None


def build_card(diagnosis: Diagnosis) -> DiagnosisCard:
    """The live card for ``diagnosis`` (imports ipywidgets)."""
    from jax_nbhelp.show.card.widget import DiagnosisCard

    return DiagnosisCard(diagnosis)


def show_card(diagnosis: Diagnosis) -> DiagnosisCard | None:
    """Display the card (static copy + live widget); None when ipywidgets is unavailable."""
    try:
        card = build_card(diagnosis)
    except ImportError:
        return None
    card.display()
    return card
