"""Stopping a long fix, and only the fix, with the kernel's own interrupt.

A fix runs in the kernel's main thread, so no button click (a comm message) can reach the
kernel while it runs: the interrupt (Jupyter's stop button, Ctrl-C, or the JupyterLab card's
Stop, which asks Jupyter to interrupt the kernel) is the one signal that can. Python runs its
SIGINT handler only in the main thread, between bytecodes; while an interpreted Pallas kernel
runs, the main thread waits inside XLA (measured: an interrupt sent 6 s into a 45 s
interpreted matmul took effect after 46 s). The interpreter runs each step through host
callbacks, in other threads, so:

- the C-level signal handler writes a byte to a pipe (``signal.set_wakeup_fd``) the moment
  the interrupt arrives, in any thread's stead;
- JAX's host-callback entry points are wrapped for the duration of the fix: each call first
  reads that pipe and, once the interrupt came, raises ``FixStopped`` inside the kernel, which
  ends the computation;
- the SIGINT handler is ours for the duration too: it raises KeyboardInterrupt only when no
  callback has seen the interrupt yet (a fix spending its time in plain Python).

The caller sees ``stop.requested`` and reports "Stopped", putting back what the fix changed.
Everything is restored afterwards. Outside the main thread, or where JAX's callback entry
points are not found, a stop simply takes effect when the main thread next runs Python.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

# JAX's host-callback entry points, looked up by name at each callback (a capability: where
# they are missing, nothing is wrapped).
_CALLBACK_MODULE = "jax._src.callback"
_CALLBACK_ENTRIES = ("pure_callback_impl", "io_callback_impl")


class FixStopped(Exception):
    """Raised inside a running kernel's host callback when the user stopped the fix."""


class Stop:
    def __init__(self, read_fd: int | None = None) -> None:
        self.requested = False
        self._read_fd = read_fd

    def check(self) -> None:
        """Raise FixStopped once the interrupt arrived (called from any thread)."""
        if not self.requested and self._read_fd is not None:
            try:
                data = os.read(self._read_fd, 512)
            except (BlockingIOError, OSError):
                data = b""
            if signal.SIGINT in data:
                self.requested = True
        if self.requested:
            raise FixStopped("the fix was stopped by an interrupt")


def _wrap(original: Callable[..., Any], stop: Stop) -> Callable[..., Any]:
    def checked(*args: Any, **kwargs: Any) -> Any:
        stop.check()
        return original(*args, **kwargs)

    return checked


class Deferred:
    """Whether an interrupt arrived while one was deferred."""

    def __init__(self) -> None:
        self.arrived = False


@contextlib.contextmanager
def deferred_interrupts() -> Iterator[Deferred]:
    """While a fix sets up and tears down, an interrupt is noted, not raised.

    Raised there, it would escape the fix: before the fix's snapshot is taken or after its
    run is done, where "Stopped" can neither put back nor keep what ran. ``stoppable``
    raises one noted before the run starts, where it stops the fix; one noted after the
    run came too late, and the fix's result stands."""
    deferred = Deferred()
    if threading.current_thread() is not threading.main_thread():
        yield deferred
        return

    def note(signum: int, frame: Any) -> None:
        deferred.arrived = True

    try:
        previous = signal.signal(signal.SIGINT, note)
    except (ValueError, OSError):
        yield deferred
        return
    try:
        yield deferred
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None
                      else signal.default_int_handler)


@contextlib.contextmanager
def stoppable(early: Deferred | None = None) -> Iterator[Stop]:
    """While the block runs, an interrupt stops it (see the module doc); yields the Stop.
    ``early``: an interrupt noted before the block (``deferred_interrupts``) stops it at
    once."""
    if threading.current_thread() is not threading.main_thread():
        yield Stop()
        return
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    os.set_blocking(write_fd, False)
    try:
        previous_fd = signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
    except (ValueError, OSError):
        os.close(read_fd)
        os.close(write_fd)
        yield Stop()
        return
    stop = Stop(read_fd)
    previous_handler = signal.getsignal(signal.SIGINT)

    def on_interrupt(signum: int, frame: Any) -> None:
        if not stop.requested:
            stop.requested = True
            raise KeyboardInterrupt

    module = sys.modules.get(_CALLBACK_MODULE)
    wrapped: dict[str, Any] = {}
    try:
        # inside the try: an interrupt the moment our handler is in raises here, and the
        # finally still puts back the handler, the wakeup pipe and JAX's entry points
        signal.signal(signal.SIGINT, on_interrupt)
        for name in _CALLBACK_ENTRIES:
            original = getattr(module, name, None) if module is not None else None
            if callable(original):
                wrapped[name] = original
                setattr(module, name, _wrap(original, stop))
        if early is not None and early.arrived:
            stop.requested = True
            raise KeyboardInterrupt
        yield stop
    finally:
        for name, original in wrapped.items():
            setattr(module, name, original)
        signal.signal(signal.SIGINT, previous_handler if previous_handler is not None
                      else signal.default_int_handler)
        signal.set_wakeup_fd(previous_fd)
        os.close(read_fd)
        os.close(write_fd)
