"""A long interpreted fix: estimated before it runs, reported while it runs (a bar in the
notebook, see test_fix_progress.py), and stopped by the kernel's interrupt without stopping
anything else (a tutorial-sized TPU matmul)."""

from __future__ import annotations

import contextlib
import dataclasses
import signal

import pytest
from conftest import SCALED_HELPER, Notebook, iopub_of, real_kernel, validate_bundle

import jax_nbhelp
from jax_nbhelp.catalog.pallas.pallas_kernel_compiled_for_cpu import BIG_MATMUL

# The blocked matmul of a Pallas TPU tutorial, as the catalog's example has it: an
# accumulator in VMEM scratch makes it a TPU kernel (TPU interpret mode on a CPU runtime);
# 2048 with 128-wide blocks is 4,096 grid steps.
MATMUL = BIG_MATMUL
FAILING = "x = jnp.ones((2048, 2048))\nout = matmul(x, x)"


def test_the_card_says_how_long_before_it_runs(loaded: Notebook) -> None:
    loaded.ok(MATMUL)
    failed = loaded.run(FAILING)
    (bundle,) = failed.diagnoses
    validate_bundle(bundle)
    assert bundle["code"] == "JNH201"
    first = bundle["fixes"][0]
    assert first["label"] == "Interpret mode from now on"  # the first fix on a CPU runtime
    assert first["estimate"]["steps"] == 4096
    assert first["estimate"]["mode"] == "tpu"
    assert first["estimate"]["long"] is True
    assert "4,096 grid steps" in first["summary"]
    assert any("stops only the fix" in note for note in bundle["notes"])


# the names of the errors a request's cell ended with (iopub "error" messages), by request
ERRORS: dict[str, list[str]] = {}


def _outputs_until(client, msg_id: str, want: str, timeout: float) -> tuple[str, bool]:
    """The text the request printed until ``want`` appears (True) or it ends (False)."""
    text = ""
    for msg in iopub_of(client, msg_id, timeout):
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            text += content["text"]
        elif kind == "error":
            ERRORS.setdefault(msg_id, []).append(content["ename"])
            text += "\n".join(content["traceback"])
        elif kind in ("display_data", "execute_result"):
            text += content["data"].get("text/plain", "")
        if want in text:
            return text, True
    return text, False


def _run(client, source: str, timeout: float = 300) -> str:
    msg_id = client.execute(source)
    text, _ = _outputs_until(client, msg_id, "\0never\0", timeout)
    return text


@pytest.mark.kernel
def test_the_kernel_interrupt_stops_only_the_fix() -> None:
    with real_kernel() as (manager, client):
        _run(client, "%load_ext jax_nbhelp")
        _run(client, MATMUL)
        assert "JNH201" in _run(client, FAILING)
        # The interrupt comes at the fix's first progress report, made to come early: the
        # 4,096-step kernel is still compiling or running then, on a machine of any speed.
        _run(client, "import jax_nbhelp.fix.rerun as r\nr.PROGRESS_AFTER = 0.2")
        msg_id = client.execute("%jax_nbhelp fix 1")
        text, running = _outputs_until(client, msg_id, "jax_nbhelp: running fix 1", timeout=300)
        assert running, text
        assert "interrupt the kernel to stop only the fix" in text
        manager.interrupt_kernel()
        rest, _ = _outputs_until(client, msg_id, "\0never\0", timeout=300)
        text += rest
        # Fix 1 on a CPU runtime is the lasting one: stopped, it leaves no mode on either.
        assert "Stopped: 'Interpret mode from now on' did not finish." in text, text
        assert "put back" in text
        # only the fix stopped, not the cell: it ends without an error. (Once, in a
        # fresh-clone CI run on a loaded 2-core machine, the output also held a printed
        # `raise KeyboardInterrupt` traceback, with the fix stopped and put back as here;
        # where Python printed it from is not established, and it did not recur in six
        # runs under load.)
        assert ERRORS.get(msg_id, []) == []
        # Nothing of the fix stayed, and the kernel goes on.
        assert _run(client, "print('out' in globals(), 1 + 1)").strip() == "False 2"
        assert "Stopped" in _run(client, "%jax_nbhelp last")
        assert "no interpret mode is on" in _run(client, "%jax_nbhelp interpret")


def test_an_interrupt_as_the_fix_sets_up_stops_it_before_anything_runs(
        loaded: Notebook) -> None:
    """An interrupt that lands before the fix's run (here: while its runtime switch is
    made) stops the fix at its start: nothing re-ran, nothing changed, and the hook stays.
    benchmarks/fuzz.py lands interrupts at seeded moments of the whole fix, set-up and
    tear-down included (fix_stop.deferred_interrupts), which a test cannot aim at."""
    loaded.ok(SCALED_HELPER)
    loaded.ok("step = 0")
    assert loaded.run("step += 1\nout = jax.jit(scaled)(jnp.ones((8, 128)))").error
    diagnosis = jax_nbhelp.last()
    assert diagnosis is not None
    fix = next(f for f in diagnosis.fixes if f.label == "Remove collective_axes")
    scaled, handler = loaded["scaled"], loaded.shell.CustomTB

    def interrupted_runtime() -> contextlib.AbstractContextManager[None]:
        signal.raise_signal(signal.SIGINT)  # what the kernel's stop button sends
        return contextlib.nullcontext()

    result = dataclasses.replace(fix, runtime=interrupted_runtime).apply()
    assert result.stopped, result
    assert loaded["scaled"] is scaled
    assert loaded["step"] == 1
    assert "out" not in loaded.shell.user_ns
    assert loaded.shell.CustomTB is handler
    # and the real fix still works after it
    assert fix.apply().ok
    assert loaded["step"] == 1
