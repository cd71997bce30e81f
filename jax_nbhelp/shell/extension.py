"""``%load_ext jax_nbhelp`` / ``%unload_ext jax_nbhelp``: symmetric, idempotent."""

from __future__ import annotations

from typing import Any

from jax_nbhelp.core import session as sessions
from jax_nbhelp.shell.hook import ExceptionHook
from jax_nbhelp.shell.magics import MAGIC_NAME, checkup_cell, jax_nbhelp_magic

# One hook per shell; a second load is a no-op.
_HOOKS: dict[int, tuple[ExceptionHook, Any, Any, sessions.Session]] = {}


# What `%load_ext jax_nbhelp` says: that it is on, what it does, and how to turn it off.
LOADED = ("jax_nbhelp is on: JAX errors get a card with the cause and verified fixes "
          "(%unload_ext jax_nbhelp turns it off).")


def load(shell: Any) -> None:
    if id(shell) in _HOOKS:
        return
    session = sessions.start(shell)
    hook = ExceptionHook(shell, session)
    line_magics = shell.magics_manager.magics["line"]
    previous_magic = line_magics.get(MAGIC_NAME)
    previous_cell = shell.magics_manager.magics["cell"].get(MAGIC_NAME)
    hook.install()
    shell.register_magic_function(jax_nbhelp_magic, magic_kind="line", magic_name=MAGIC_NAME)
    shell.register_magic_function(checkup_cell, magic_kind="cell", magic_name=MAGIC_NAME)
    _HOOKS[id(shell)] = (hook, previous_magic, previous_cell, session)
    from jax_nbhelp.core import classroom
    from jax_nbhelp.shell import warm_up

    session.show_fixes = classroom.configured_show_fixes(shell)  # c.JaxNbhelp.show_fixes
    session.fold_traceback = classroom.configured_fold_traceback(shell)

    warm_up.start()
    print(LOADED)


def unload(shell: Any) -> None:
    entry = _HOOKS.pop(id(shell), None)
    if entry is None:
        return
    hook, previous_magic, previous_cell, session = entry
    hook.uninstall()
    for kind, previous in (("line", previous_magic), ("cell", previous_cell)):
        magics = shell.magics_manager.magics[kind]
        if previous is None:
            magics.pop(MAGIC_NAME, None)
        else:
            magics[MAGIC_NAME] = previous
    if sessions.current() is session:
        from jax_nbhelp.jaxapi import interpret_modes

        interpret_modes.switch_off()  # what a fix left on goes back as it was
    sessions.end(session)  # its cards, raised lines, classroom mode and speeds go with it


def is_loaded(shell: Any) -> bool:
    return id(shell) in _HOOKS
