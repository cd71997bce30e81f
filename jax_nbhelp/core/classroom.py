"""Classroom mode: a diagnosis shows the cause, the place and the why, and keeps its fixes
back until the student asks for them.

Switched by the magic (``%jax_nbhelp hints``, ``%jax_nbhelp fixes``) or by IPython's
configuration in the traitlets style: ``c.JaxNbhelp.show_fixes = False`` in a profile's
``ipython_config.py`` (or ``ipython_kernel_config.py``), or ``--JaxNbhelp.show_fixes=False``
on the command line. The card, the text and the mime bundle all show the same thing, since
they are drawn from the one diagnosis ``shown`` returns; the full diagnosis stays in
``jax_nbhelp.last()``, so revealing the fixes needs no re-run.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from traitlets import Bool
from traitlets.config import Configurable

from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.core.session import current


class JaxNbhelp(Configurable):
    """jax_nbhelp's settings, read from the shell's configuration at ``%load_ext``."""

    show_fixes = Bool(
        True,
        help="Show the fixes of a diagnosis. False is classroom mode: the cause, the place "
             "and the why only, until `%jax_nbhelp fixes`.",
    ).tag(config=True)


def settings(shell: Any = None) -> JaxNbhelp:
    """The settings of this process, configured from ``shell`` when first asked."""
    session = current()
    if session.settings is None:
        configured = (isinstance(shell, Configurable)
                      and getattr(shell, "config", None) is not None)
        session.settings = JaxNbhelp(parent=shell) if configured else JaxNbhelp()
    settings: JaxNbhelp = session.settings
    return settings


def forget() -> None:
    """Drop the settings (``%unload_ext``): a later load reads the configuration again."""
    current().settings = None


def fixes_shown() -> bool:
    return bool(settings().show_fixes)


def shown(diagnosis: Diagnosis) -> Diagnosis:
    """The diagnosis as it is shown now: without its fixes in classroom mode."""
    if fixes_shown() or not diagnosis.fixes:
        return diagnosis
    return replace(diagnosis, fixes=(), hidden_fixes=len(diagnosis.fixes))

