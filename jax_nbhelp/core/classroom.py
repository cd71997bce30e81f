"""Classroom mode: a diagnosis shows the cause, the place and the why, and keeps its fixes
back until the student asks for them.

Switched by the magic (``%jax_nbhelp hints``, ``%jax_nbhelp fixes``) or by IPython's
configuration in the traitlets style: ``c.JaxNbhelp.show_fixes = False`` in a profile's
``ipython_config.py`` (or ``ipython_kernel_config.py``), or ``--JaxNbhelp.show_fixes=False``
on the command line. The configuration is read once, at ``%load_ext``, into the session
(``Session.show_fixes``); the card, the text and the mime bundle all show the same thing,
since they are drawn from the one diagnosis ``show.display.presented`` makes of it; the
full diagnosis stays in ``jax_nbhelp.last()``, so revealing the fixes needs no re-run.
"""

from __future__ import annotations

from typing import Any

from traitlets import Bool
from traitlets.config import Configurable


class JaxNbhelp(Configurable):
    """jax_nbhelp's settings, read from the shell's configuration at ``%load_ext``."""

    show_fixes = Bool(
        True,
        help="Show the fixes of a diagnosis. False is classroom mode: the cause, the place "
             "and the why only, until `%jax_nbhelp fixes`.",
    ).tag(config=True)
    fold_traceback = Bool(
        True,
        help="Where a card explains the error and the frontend does not fold tracebacks "
             "itself, show each run of JAX's internal frames as one line (`%jax_nbhelp "
             "traceback` shows the whole one). False keeps IPython's traceback as it is.",
    ).tag(config=True)


def configured_fold_traceback(shell: Any = None) -> bool:
    """``fold_traceback`` as ``shell``'s configuration sets it (True where it has none)."""
    configured = isinstance(shell, Configurable) and getattr(shell, "config", None) is not None
    return bool((JaxNbhelp(parent=shell) if configured else JaxNbhelp()).fold_traceback)


def configured_show_fixes(shell: Any = None) -> bool:
    """``show_fixes`` as ``shell``'s configuration sets it (True where it has none)."""
    configured = isinstance(shell, Configurable) and getattr(shell, "config", None) is not None
    return bool((JaxNbhelp(parent=shell) if configured else JaxNbhelp()).show_fixes)
