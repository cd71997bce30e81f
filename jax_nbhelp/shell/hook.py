"""The IPython exception hook: IPython's own traceback first, then the diagnosis.

IPython has one custom-exception slot (``set_custom_exc``) and Colab's kernel already uses it,
so the hook chains: exceptions the previous handler claimed still go to it, everything else
gets IPython's normal traceback, and then jax_nbhelp adds its diagnosis. The hook never
raises: IPython would unregister it (and the previous handler with it).
"""

from __future__ import annotations

import contextlib
import sys
from types import TracebackType
from typing import Any

from jax_nbhelp.core.session import Session
from jax_nbhelp.shell import traceback_fold
from jax_nbhelp.shell.cell_frames import CellFiles

_SYNTAX_PATH_ERRORS = (OverflowError, SyntaxError, ValueError, TypeError, MemoryError)


class ExceptionHook:
    """jax_nbhelp's occupant of ``shell.set_custom_exc``, remembering what was there before."""

    def __init__(self, shell: Any, session: Session) -> None:
        self.shell = shell
        self.session = session
        self.previous: tuple[tuple[type[BaseException], ...], Any] = (
            tuple(shell.custom_exceptions),
            shell.CustomTB,
        )
        self.active = False
        self._installed: Any = None
        self.cell_files = CellFiles()

    def install(self) -> None:
        previous_types = self.previous[0]
        claimed = tuple(dict.fromkeys((*previous_types, Exception)))
        self.shell.set_custom_exc(claimed, _make_handler(self))
        self._installed = self.shell.CustomTB
        self.active = True

    def uninstall(self) -> None:
        """Put back exactly what was there, unless someone else has since taken the slot."""
        self.active = False
        self.cell_files.clear()
        if self.shell.CustomTB is self._installed:
            self.shell.custom_exceptions, self.shell.CustomTB = self.previous

    def handle(self, etype: type[BaseException], value: BaseException,
               tb: TracebackType | None, tb_offset: int | None) -> None:
        previous_types, previous_handler = self.previous
        if previous_types and isinstance(value, previous_types):
            previous_handler(etype, value, tb, tb_offset=tb_offset)
            self._reinstall_if_dropped()
            found = self._diagnose(value) if self.active else None
        else:
            # The diagnosis first: where a card explains the error, JAX's frames are folded
            # out of the traceback shown above it (traceback_fold), unless the frontend does.
            found = self._diagnose(value) if self.active else None
            # If IPython cannot format the user's exception (a broken __str__ or
            # __getattr__), it prints its own fallback: the user's problem, shown the way
            # IPython shows it, and nothing for jax_nbhelp to add.
            with contextlib.suppress(Exception):
                self._show_like_ipython(value, tb, fold=found is not None and found[0]
                                        is not None)
        if self.active:
            self._note_raised(tb)
            if found is not None:
                self._show(*found)
            self._clear_failed_interpreter()

    def _note_raised(self, tb: TracebackType | None) -> None:
        # Which statement of the cell raised: it never completed, and a try of the same
        # cell again supersedes it (a fix does not run it again, see run_plan).
        with contextlib.suppress(Exception):
            from jax_nbhelp.diagnosis.sources import raising_cell_line

            found = raising_cell_line(tb, self.shell, self.session.reruns)
            if found is not None:
                self.session.raised.note(*found)

    @staticmethod
    def _clear_failed_interpreter() -> None:
        # the cell has ended, so a kernel that failed in the GPU interpreter left its memory
        # behind (jaxapi.capabilities); the next kernel must not trip over it
        if "jax" in sys.modules:
            with contextlib.suppress(Exception):
                from jax_nbhelp.jaxapi.capabilities import clear_failed_gpu_interpreter

                clear_failed_gpu_interpreter()

    def _reinstall_if_dropped(self) -> None:
        # When the previous handler raises, IPython clears the whole slot: that handler is
        # gone by IPython's own rule, but jax_nbhelp should stay.
        if self.active and self.shell.CustomTB is not self._installed:
            self.previous = (tuple(self.shell.custom_exceptions), self.shell.CustomTB)
            self.install()

    def _show_like_ipython(self, value: BaseException, tb: TracebackType | None,
                           fold: bool = False) -> None:
        """Exactly what IPython does for an exception nobody claimed (the same text; its
        cells' frames found to be of no module at once, see cell_frames); ``fold``: a card
        follows, so JAX's frames are folded where nothing else folds them."""
        self.cell_files.enter(value, tb)
        self.session.last_traceback = None
        if not (fold and traceback_fold.should_fold(self.shell, self.session.fold_traceback)):
            self._show_traceback(value, tb)
            return
        from jax_nbhelp.diagnosis.provenance import is_jax_file

        def keep(whole: list[str]) -> None:
            self.session.last_traceback = whole

        with traceback_fold.folding(self.shell, is_jax_file, keep):
            self._show_traceback(value, tb)

    def _show_traceback(self, value: BaseException, tb: TracebackType | None) -> None:
        shell = self.shell
        if tb is not None and tb.tb_frame.f_code.co_name == "run_code":
            shell.showtraceback(running_compiled_code=True)
        elif isinstance(value, IndentationError):
            # Reached from run_cell's parse step: IPython reports these without a traceback.
            shell.showindentationerror()
        elif isinstance(value, _SYNTAX_PATH_ERRORS):
            shell.showsyntaxerror()
        else:
            shell.showtraceback()

    def _diagnose(self, value: BaseException) -> tuple[Any, str | None] | None:
        """The diagnosis of ``value`` (or None) and what to say of a failure in making it,
        said after the traceback; None where there is nothing to show or say."""
        if "jax" not in sys.modules and not isinstance(value, ModuleNotFoundError):
            return None  # every error jax_nbhelp knows comes from JAX, or a missing library
        try:
            from jax_nbhelp.diagnosis.engine import diagnose

            failures = self.session.failures
            failures_before = failures.count
            diagnosis = diagnose(value, self.shell, self.session)
            # an entry that crashed may have been the one that knew this error: say so,
            # whether or not the general view stands in for it
            said = ("jax_nbhelp: a diagnosis failed on this error (see "
                    "jax_nbhelp.core.session.current().failures); the traceback above is "
                    "complete.") if failures.count != failures_before else None
        except Exception as exc:
            diagnosis, said = None, (
                f"jax_nbhelp: the diagnosis failed ({type(exc).__name__}: {exc}); "
                "the traceback above is IPython's own and complete.")
        return (diagnosis, said) if diagnosis is not None or said else None

    def _show(self, diagnosis: Any, said: str | None) -> None:
        if said:
            print(said, file=sys.stderr)
        if diagnosis is None:
            return
        try:
            from jax_nbhelp.shell.checkup_actions import with_check
            from jax_nbhelp.show.display import show

            if diagnosis.concerns_kernel:  # "Check this kernel" after its fixes
                diagnosis = with_check(diagnosis, self.session)
            self.session.last = diagnosis
            show(diagnosis, self.session)
        except Exception as exc:
            print(
                f"jax_nbhelp: the diagnosis failed ({type(exc).__name__}: {exc}); "
                "the traceback above is IPython's own and complete.",
                file=sys.stderr,
            )


def _make_handler(hook: ExceptionHook) -> Any:
    def jax_nbhelp_handler(shell: Any, etype: type[BaseException], value: BaseException,
                           tb: TracebackType | None, tb_offset: int | None = None) -> None:
        try:
            hook.handle(etype, value, tb, tb_offset)
        except BaseException as exc:
            # A bug here must never cost the user their traceback.
            try:
                print(f"jax_nbhelp: internal error ({type(exc).__name__}: {exc}).",
                      file=sys.stderr)
                shell.showtraceback((etype, value, tb))
            except BaseException:
                pass

    return jax_nbhelp_handler
