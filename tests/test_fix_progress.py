"""Progress you can trust: a long interpreted fix shows its grid steps (counted by TPU
interpret mode's per-step hook) and the time left, corrected by the run's own pace; without
a hook the bar follows the estimate, and an estimate is calibrated by what the last
interpreted run took. In-process checks with real JAX, then a real kernel: the JupyterLab
card's reports (PROGRESS_MIME) and the magic's bar."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import pytest
from conftest import Notebook, iopub_of, real_kernel, validate_bundle
from jax.experimental import pallas as pl

from jax_nbhelp.catalog.pallas.pallas_kernel_compiled_for_cpu import BIG_MATMUL
from jax_nbhelp.core.session import InterpretSpeed
from jax_nbhelp.diagnosis.kernel_facts import KernelFacts
from jax_nbhelp.jaxapi import grid_progress, interpret_cost, interpret_modes
from jax_nbhelp.shell.frontend import PROGRESS_MIME
from jax_nbhelp.show.progress_bar import bar, line


def _doubled(x: jax.Array) -> jax.Array:
    def body(x_ref: Any, o_ref: Any) -> None:
        o_ref[...] = x_ref[...] * 2

    spec = pl.BlockSpec((8, 128), lambda i, j: (i, j))
    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(4, 5),
                          in_specs=[spec], out_specs=spec,
                          interpret=interpret_modes.params_value("tpu"))(x)


def test_tpu_interpret_mode_counts_each_grid_step() -> None:
    x = jnp.ones((32, 640))
    with grid_progress.counting() as counter:
        out = jax.jit(_doubled)(x)
        out.block_until_ready()
    assert counter.steps == 20
    assert counter.first_at is not None
    assert counter.last_at is not None
    assert bool((out == 2).all())  # the hook changes nothing of the kernel's result
    _doubled(x).block_until_ready()  # with no fix counting, the hook only hands back


def test_the_hook_is_added_only_where_the_params_have_it() -> None:
    params = interpret_modes.params_value("tpu")
    assert params.grid_point_recorder is grid_progress.record
    assert grid_progress.with_recorder(True) is True  # interpret=True has no hook
    assert grid_progress.with_recorder(params) is params  # a recorder already set stays


_FOUND = interpret_cost.Estimate(steps=100, mode="tpu", seconds=20.0, step_seconds=0.19)


def test_counted_steps_give_the_time_left_from_the_run_s_own_pace() -> None:
    # 11 steps in 10 s after 2 s of compiling: 1 s a step, whatever the estimate said
    now = interpret_cost.progress(_FOUND, 12.5, steps=11, first_at=2.0, last_at=12.0)
    assert (now.steps, now.total) == (11, 100)
    assert now.fraction == pytest.approx(0.11)
    assert now.seconds_left == pytest.approx(90 - 0.5)
    assert now.text == "grid step 11 of 100 · 12 s · about 90 s left"
    first = interpret_cost.progress(_FOUND, 3.0, steps=1, first_at=2.0, last_at=2.0)
    assert first.seconds_left == pytest.approx(17.0)  # one step: the estimate still speaks
    more = interpret_cost.progress(_FOUND, 30.0, steps=150, first_at=2.0, last_at=29.0)
    assert (more.total, more.fraction, more.seconds_left) == (None, None, None)
    assert more.text == "150 grid steps · 30 s"  # the cell runs more than that kernel


def test_without_steps_the_bar_follows_the_estimate_and_stops_claiming_past_it() -> None:
    early = interpret_cost.progress(_FOUND, 5.0)
    assert (early.steps, early.fraction, early.seconds_left) == (None, 0.25, 15.0)
    assert early.text == "5 s of roughly 20 s · about 15 s left"
    late = interpret_cost.progress(_FOUND, 45.0)
    assert (late.fraction, late.seconds_left) == (None, None)
    assert late.text == "45 s, longer than the roughly 20 s estimated"
    assert interpret_cost.progress(None, 4.0).text == "4 s"
    validate_bundle({"card_id": "c", "fix": 1, **early.to_json()}, "progress")


def test_an_interpreted_run_calibrates_the_next_estimate() -> None:
    facts = KernelFacts(grid=(16, 16, 16), block_shapes=((128, 128),) * 3,
                        primitives=("dot_general",), array_bytes=3 * 2048 * 2048 * 4)
    speed = InterpretSpeed()  # a session's: what its interpreted fixes taught it
    before = interpret_cost.estimate(facts, "tpu", speed)
    assert before is not None
    assert not before.calibrated
    assert "on a small CPU machine" in interpret_cost.sentence(before)
    # the run's steps went three times as slow as estimated
    step = before.step_seconds * 3
    interpret_cost.calibrate(speed, before, 60.0, steps=101, first_at=1.0,
                             last_at=1.0 + 100 * step)
    after = interpret_cost.estimate(facts, "tpu", speed)
    assert after is not None
    assert after.calibrated
    assert after.step_seconds == pytest.approx(before.step_seconds * 3)
    assert ("on this machine, going by the last interpreted run"
            in interpret_cost.sentence(after))
    assert after.to_json()["calibrated"] is True
    # an HLO run counts no steps: its whole time calibrates, within sane bounds
    hlo = interpret_cost.estimate(facts, "hlo", speed)
    assert hlo is not None
    interpret_cost.calibrate(speed, hlo, 1e6)
    assert speed.factor("hlo") == 20.0
    # another session's estimates are its own
    fresh = interpret_cost.estimate(facts, "tpu", InterpretSpeed())
    assert fresh is not None
    assert not fresh.calibrated


def test_the_estimate_grows_with_a_step_s_work() -> None:
    small = KernelFacts(grid=(8, 8, 8), block_shapes=((128, 128),) * 3,
                        primitives=("dot_general",), array_bytes=3 * 1024 * 1024 * 4)
    big = KernelFacts(grid=(8, 8, 8), block_shapes=((512, 1024), (1024, 1024), (512, 1024)),
                      primitives=("dot_general",), array_bytes=3 * 4096 * 4096 * 2)
    for mode in ("hlo", "tpu"):
        low, high = interpret_cost.estimate(small, mode), interpret_cost.estimate(big, mode)
        assert low is not None
        assert high is not None
        assert high.step_seconds > 3 * low.step_seconds


def test_the_text_bar() -> None:
    assert bar(0.5) == "█" * 12 + "░" * 12 + " 50%"
    assert bar(None) == ""
    now = interpret_cost.progress(_FOUND, 5.0)
    assert line("fix 1 (Re-run in TPU interpret mode)", now).startswith(
        "jax_nbhelp: running fix 1 (Re-run in TPU interpret mode)  ██████░")


# --- in a real kernel ------------------------------------------------------------------------

# The TPU tutorial's matmul on a 1024 array: 512 grid steps in TPU interpret mode. Reports
# start early here (PROGRESS_AFTER), so the test needs no slow machine to see them.
FAILING = "x = jnp.ones((1024, 1024))\nout = matmul(x, x)"
QUICK_REPORTS = ("import jax_nbhelp.fix.rerun as r\n"
                 "r.PROGRESS_AFTER = r.PROGRESS_EVERY = 0.1")


def _messages(client: Any, msg_id: str, timeout: float = 300) -> list[dict[str, Any]]:
    """The request's iopub messages until it is idle."""
    return list(iopub_of(client, msg_id, timeout))


def _run(client: Any, source: str) -> list[dict[str, Any]]:
    return _messages(client, client.execute(source))


def _data(messages: list[dict[str, Any]], mime: str) -> list[tuple[str, Any]]:
    return [(m["msg_type"], m["content"]["data"][mime]) for m in messages
            if m["msg_type"] in ("display_data", "update_display_data")
            and mime in m["content"]["data"]]


@pytest.mark.kernel
def test_a_running_fix_reports_its_grid_steps_to_the_card_and_the_magic() -> None:
    with real_kernel() as (_manager, client):
        _run(client, "%load_ext jax_nbhelp")
        _run(client, BIG_MATMUL)
        _run(client, QUICK_REPORTS)
        failed = _run(client, FAILING)
        (bundle,) = [data for _, data in _data(failed, "application/vnd.jax-nbhelp.diagnosis+json")]
        first = bundle["fixes"][0]
        assert first["estimate"]["steps"] == 512
        assert first["estimate"]["mode"] == "tpu"

        # What the JupyterLab card hears: one display, then its updates, as the schema says.
        call = ('__import__("jax_nbhelp.shell.frontend").shell.frontend.apply('
                f'{bundle["card_id"]!r}, 1)')
        reports = _data(_run(client, call), PROGRESS_MIME)
        assert reports, "no progress reported"
        assert reports[0][0] == "display_data"
        assert all(kind == "update_display_data" for kind, _ in reports[1:])
        for _, report in reports:
            validate_bundle(report, "progress")
            assert report["card_id"] == bundle["card_id"]
            assert report["fix"] == 1
        counted = [report for _, report in reports if report["steps"]]
        assert counted, [report["text"] for _, report in reports]
        steps = [report["steps"] for report in counted]
        assert steps == sorted(steps)
        assert max(steps) <= 512
        assert all(report["total"] == 512 for report in counted)
        assert any(" of 512 · " in report["text"] for report in counted)
        result = _run(client, "import jax_nbhelp\nprint(bool(jnp.allclose(out, x @ x)), "
                              "jax_nbhelp.last_result().ok)")
        text = "".join(m["content"].get("text", "") for m in result if m["msg_type"] == "stream")
        assert text.split()[-2:] == ["True", "True"], text

        # The magic, in a kernel: a bar updated in place, ending with how the fix ended.
        _run(client, "del out")
        _run(client, "%jax_nbhelp interpret off")
        (again,) = [data for _, data in _data(_run(client, FAILING),
                                               "application/vnd.jax-nbhelp.diagnosis+json")]
        labels = [fix["label"] for fix in again["fixes"]]
        once = labels.index("Re-run in TPU interpret mode") + 1  # counted: it sets the mode
        shown = _run(client, f"%jax_nbhelp fix {once}")
        bars = [(m["msg_type"], m["content"]["data"]["text/plain"]) for m in shown
                if m["msg_type"] in ("display_data", "update_display_data")
                and str(m["content"]["data"].get("text/plain", "")).startswith("jax_nbhelp: ")]
        assert bars, shown
        assert bars[0][0] == "display_data"
        assert any("█" in text or "░" in text for _, text in bars), bars
        assert bars[-1][0] == "update_display_data"
        assert " ran after " in bars[-1][1], bars[-1]


def test_the_widget_card_hears_the_progress_while_the_fix_runs(
        loaded: Notebook, monkeypatch: pytest.MonkeyPatch) -> None:
    """The anywidget card: each report of the running fix goes to the browser as a
    ``progress`` message for the card, before the ``result``."""
    import jax_nbhelp
    import jax_nbhelp.fix.rerun as rerun
    from jax_nbhelp.show.card import build_card, live

    if not live.built():
        pytest.skip("the card's module is not built")
    monkeypatch.setattr(rerun, "PROGRESS_AFTER", 0.1)  # reports start early, on any machine
    monkeypatch.setattr(rerun, "PROGRESS_EVERY", 0.1)
    loaded.ok(BIG_MATMUL)
    assert loaded.run("x = jnp.ones((512, 512))\nout = matmul(x, x)").error is not None
    diagnosis = jax_nbhelp.last()
    assert diagnosis is not None
    card = build_card(diagnosis)
    sent: list[dict[str, Any]] = []
    card.widget.send = lambda content, buffers=None: sent.append(content)
    number = next(n for n, fix in enumerate(diagnosis.fixes, 1)
                  if fix.label == "Re-run in TPU interpret mode")
    card.widget._handle_msg({"content": {"data": {"method": "custom", "content": {
        "kind": "apply", "card_id": card.card_id, "number": number}}}, "buffers": []})
    *reports, last = sent
    assert last["kind"] == "result"
    assert last["result"]["ok"], last["result"]
    assert reports, "no progress was reported"
    assert {report["kind"] for report in reports} == {"progress"}
    assert {report["card_id"] for report in reports} == {card.card_id}
    # a report before the first counted step has no fraction yet
    fractions = [report["progress"]["fraction"] for report in reports
                 if report["progress"]["fraction"] is not None]
    assert fractions, reports
    assert fractions == sorted(fractions)
    assert 0 < fractions[-1] <= 1
    assert any("grid step" in report["progress"]["text"]
               and " of 64 · " in report["progress"]["text"] for report in reports)
    validate_bundle(reports[-1]["progress"], "progress")
