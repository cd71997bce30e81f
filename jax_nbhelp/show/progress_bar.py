"""A running fix's progress as one line of text, and as a bar updated in place in a notebook.

The bar is plain text (block characters), so it reads the same in JupyterLab, Notebook 7,
VS Code, Colab and a saved notebook; its display is updated through a display id from the
fix's progress thread. Where nothing can update a display (terminal IPython) the magic
prints a line now and then instead.
"""

from __future__ import annotations

import uuid
from typing import Any

from jax_nbhelp.core.model import FixProgress, FixResult
from jax_nbhelp.core.session import current_shell

WIDTH = 24


def bar(fraction: float | None) -> str:
    """``████████░░░░░░░░ 42%``; None (no way to tell) draws nothing."""
    if fraction is None:
        return ""
    filled = round(max(0.0, min(1.0, fraction)) * WIDTH)
    return "█" * filled + "░" * (WIDTH - filled) + f" {fraction:.0%}"


def line(name: str, now: FixProgress) -> str:
    """``jax_nbhelp: running fix 1 (Re-run …)  ██░░ 8%  grid step 320 of 4,096 · …``"""
    drawn = bar(now.fraction)
    return (f"jax_nbhelp: running {name}  {drawn + '  ' if drawn else ''}{now.text}; "
            "interrupt the kernel to stop only the fix.")


def has_frontend() -> bool:
    """Whether the shell runs in a kernel, whose frontend can update a display in place."""
    return getattr(current_shell(), "kernel", None) is not None


class UpdatedDisplay:
    """One display, made by the first ``publish`` and updated in place by the next ones
    (from any thread: the fix's progress thread publishes)."""

    def __init__(self) -> None:
        self.display_id = f"jax-nbhelp-progress-{uuid.uuid4().hex}"
        self.shown = False

    def publish(self, data: dict[str, Any]) -> None:
        from IPython.display import display, update_display

        if self.shown:
            update_display(data, raw=True, display_id=self.display_id)
        else:
            display(data, raw=True, display_id=self.display_id)
            self.shown = True


class LiveBar:
    """The magic's bar: the first report as a display, each next one updating it."""

    def __init__(self, number: int, label: str) -> None:
        self.name = f"fix {number} ({label})"
        self.display = UpdatedDisplay()
        self.finished = False

    def _publish(self, text: str) -> None:
        self.display.publish({"text/plain": text})

    def __call__(self, now: FixProgress) -> None:
        if not self.finished:
            self._publish(line(self.name, now))

    def finish(self, result: FixResult) -> None:
        """Replace a shown bar by how the fix ended (a bar left at 97% would say it hangs)."""
        self.finished = True
        if not self.display.shown:
            return
        how = "ran" if result.ok else "stopped" if result.stopped else "failed"
        self._publish(f"jax_nbhelp: {self.name} {how} after {result.seconds:.0f} s.")
