"""One Jupyter kernel, driven cell by cell: what each execution printed and displayed, as
notebook outputs, with jax_nbhelp's diagnosis bundles and fix results picked out.

A cell that runs past its time limit is interrupted (and reported as such); a kernel that
does not answer the interrupt, or dies, raises :class:`KernelGone`.
"""

from __future__ import annotations

import os
import queue
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jax_nbhelp.core.protocol import DIAGNOSIS_MIME, PROGRESS_MIME, RESULT_MIME

__all__ = ["DIAGNOSIS_MIME", "Kernel", "KernelGone", "NoSuchKernel", "Outcome"]
_INTERRUPT_GRACE = 30.0  # seconds a kernel gets to stop after an interrupt


class KernelGone(RuntimeError):
    """The kernel died, or stopped answering."""


class NoSuchKernel(RuntimeError):
    """No kernelspec of that name is installed."""


@dataclass
class Outcome:
    outputs: list[dict[str, Any]] = field(default_factory=list)  # nbformat output dicts
    text: str = ""  # every stream and text/plain, in order
    error: tuple[str, str] | None = None  # (ename, evalue)
    bundles: list[dict[str, Any]] = field(default_factory=list)  # diagnosis bundles
    results: list[dict[str, Any]] = field(default_factory=list)  # fix results
    execution_count: int | None = None
    timed_out: bool = False
    seconds: float = 0.0


class Kernel:
    """A fresh kernel of ``kernel_name`` started in ``cwd``."""

    def __init__(self, kernel_name: str, cwd: Path, startup_timeout: float = 300.0) -> None:
        from jupyter_client.kernelspec import NoSuchKernel as _Missing
        from jupyter_client.manager import KernelManager

        self.km = KernelManager(kernel_name=kernel_name)
        try:
            # The kernel's own start-up chatter (a TCP warning) is not the report.
            self.km.start_kernel(cwd=str(cwd), env=dict(os.environ),
                                 stderr=subprocess.DEVNULL)
        except _Missing:
            raise NoSuchKernel(f"no Jupyter kernel named {kernel_name!r} is installed "
                               "(`jupyter kernelspec list` shows them)") from None
        self.kc = self.km.client()
        self.kc.start_channels()
        try:
            self.kc.wait_for_ready(timeout=startup_timeout)
        except RuntimeError as exc:
            self.close()
            raise KernelGone(f"the kernel did not start: {exc}") from None

    def close(self) -> None:
        try:
            self.kc.stop_channels()
        finally:
            self.km.shutdown_kernel(now=True)

    def run(self, code: str, timeout: float, *, silent: bool = False,
            on_progress: Callable[[dict[str, Any]], None] | None = None) -> Outcome:
        """Execute ``code``; ``silent`` runs it without an execution count or history (how
        the JupyterLab extension applies a fix); ``on_progress`` hears each report of a
        running fix (PROGRESS_MIME, the first display and its updates)."""
        out = Outcome()
        start = time.monotonic()
        msg_id = self.kc.execute(code, silent=False, store_history=not silent,
                                 allow_stdin=False)
        deadline = start + timeout
        while True:
            now = time.monotonic()
            if now >= deadline:
                if out.timed_out:
                    raise KernelGone("the kernel did not stop after an interrupt")
                out.timed_out = True
                self.km.interrupt_kernel()
                deadline = now + _INTERRUPT_GRACE
            try:
                msg = self.kc.get_iopub_msg(timeout=min(1.0, max(deadline - now, 0.01)))
            except queue.Empty:
                if not self.km.is_alive():
                    raise KernelGone("the kernel died") from None
                continue
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if on_progress is not None:
                data = msg["content"].get("data") or {}
                if msg["msg_type"] in ("display_data", "update_display_data") \
                        and isinstance(data.get(PROGRESS_MIME), dict):
                    on_progress(data[PROGRESS_MIME])
            if _collect(out, msg["msg_type"], msg["content"]):
                break
        self._reply(msg_id, out)
        out.seconds = time.monotonic() - start
        return out

    def _reply(self, msg_id: str, out: Outcome) -> None:
        """Read the execute reply (its execution count), so replies do not pile up."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                reply = self.kc.get_shell_msg(timeout=5)
            except queue.Empty:
                if not self.km.is_alive():
                    raise KernelGone("the kernel died") from None
                continue
            if reply["parent_header"].get("msg_id") == msg_id:
                out.execution_count = reply["content"].get("execution_count")
                return


def _collect(out: Outcome, kind: str, content: dict[str, Any]) -> bool:
    """Add one iopub message to ``out``; True when the execution is over."""
    if kind == "status":
        return bool(content.get("execution_state") == "idle")
    if kind == "stream":
        out.text += content["text"]
        out.outputs.append({"output_type": "stream", "name": content["name"],
                            "text": content["text"]})
    elif kind in ("display_data", "execute_result"):
        data = content.get("data", {})
        if RESULT_MIME in data:
            out.results.append(data[RESULT_MIME])
            return False  # the answer to a fix request, not an output of the cell
        if PROGRESS_MIME in data:
            return False  # how far a fix is, not an output either
        if DIAGNOSIS_MIME in data:
            out.bundles.append(data[DIAGNOSIS_MIME])
        out.text += str(data.get("text/plain", "")) + "\n"
        output: dict[str, Any] = {"output_type": kind, "data": data,
                                  "metadata": content.get("metadata", {})}
        if kind == "execute_result":
            output["execution_count"] = content.get("execution_count")
        out.outputs.append(output)
    elif kind == "error":
        out.error = (str(content.get("ename", "")), str(content.get("evalue", "")))
        out.outputs.append({"output_type": "error", "ename": content.get("ename", ""),
                            "evalue": content.get("evalue", ""),
                            "traceback": content.get("traceback", [])})
    elif kind == "clear_output":
        out.outputs.clear()
    return False
