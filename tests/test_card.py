"""The inline card, clicked in a real shell after the real JAX error.

The buttons are pressed with ``Button.click()``, which runs the same handlers a browser
click runs through the widget's comm.
"""

from __future__ import annotations

import html as html_lib
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Notebook

import jax_nbhelp
from jax_nbhelp.core.model import Location
from jax_nbhelp.core.state import STATE
from jax_nbhelp.jaxapi import jax_probe
from jax_nbhelp.show.card import build_card, widget_frontend
from jax_nbhelp.show.card.html import esc, shown_order, source_window, strip_ansi
from jax_nbhelp.show.card.widget import WIDGET_VIEW_MIME, DiagnosisCard
from jax_nbhelp.show.render_text import MIME_TYPE

HELPER = '''\
def scaled(x):
    def body(ref):
        ref[...] = x * 2
        return ref[...] + 1
    return pl.run_scoped(body, pltpu.VMEM(x.shape, x.dtype), collective_axes="core")'''

CALL = "out = jax.jit(scaled)(jnp.ones((8, 128)))"


def _text(markup: str) -> str:
    """What a browser shows for ``markup``: tags dropped, entities decoded."""
    return html_lib.unescape(re.sub(r"<[^>]+>", "", markup))


def _card(nb: Notebook, *cells: str) -> DiagnosisCard:
    for cell in cells[:-1]:
        nb.ok(cell)
    assert nb.run(cells[-1]).error is not None
    diagnosis = jax_nbhelp.last()
    assert diagnosis is not None
    return build_card(diagnosis)


def _details(card: DiagnosisCard) -> str:
    """What the card's closed details show: the error, where, why, each fix's safety and
    what it runs."""
    return _text(card.details.value)


def _button(card: DiagnosisCard, label: str) -> int:
    return next(n for n, fix in enumerate(card.diagnosis.fixes, 1) if fix.label == label)


def test_card_shows_cause_location_call_site_and_fixes(loaded: Notebook) -> None:
    card = _card(loaded, HELPER, CALL)
    # at a glance: the title, the code, one sentence of cause with its place
    header = _text(card.header.value)
    assert "Collective run_scoped compiled outside a Pallas kernel" in header
    assert "JNH101" in header
    assert card.diagnosis.glance()["cause"] in header
    assert "In [3], line 5" in header
    assert card.diagnosis.error not in header  # it sits right above, in the traceback
    details = _details(card)
    assert "In [3], line 5, in scaled" in details
    assert "5 →     return pl.run_scoped(body" in details  # the offending line, marked
    assert "Reached from: In [4], line 1" in details
    assert f"1 → {CALL}" in details
    assert "<details" in card.details.value
    assert " open" not in card.details.value
    assert [b.description for b in card.buttons] == [
        "Fix 1: Run as one program", "Fix 2: Remove collective_axes"]
    assert not any(b.disabled for b in card.buttons)
    # the recommended fix first, as the primary button with its line (Remove
    # collective_axes: it lasts), the other after it; numbers unchanged
    assert shown_order(card.diagnosis) == [2, 1]
    primary, others = card.body.children[:2]
    assert primary.children[0] is card.buttons[1]
    assert card.buttons[1].button_style == "primary"
    assert card.buttons[0].button_style == ""
    assert "Same results. It lasts" in _text(primary.children[1].value)
    assert others.children[1] is card.buttons[0]
    for fix in card.diagnosis.fixes:
        assert "Safe: " + card.diagnosis.own_safety(fix) in details
        # The preview is exactly the source the fix runs, character for character.
        assert fix.preview() in details


def test_clicking_a_fix_runs_it_and_ends_with_fixed(loaded: Notebook) -> None:
    card = _card(loaded, HELPER, CALL + "\nprint('numbers:', float(out.sum()))\nout.shape")
    seen: list[bool] = []
    card.buttons[0].observe(lambda change: seen.append(change.new), "disabled")
    card.click(_button(card, "Remove collective_axes"))
    assert seen == [True, False]  # disabled while the fix ran, enabled after
    result = card.result
    assert result is not None
    assert result.ok
    assert float(loaded["out"].sum()) == 3.0 * 8 * 128
    outcome = _text(card.outcome.value)
    assert f"✓ Fixed. “Remove collective_axes” ran without error in {result.seconds:.2f} s." \
        in outcome
    # The fixed source, to copy into the cell, is the source the fix ran.
    fixed = card.diagnosis.fixes[1].runs[0]
    assert fixed.changed
    assert "Fixed source of In [3]: copy it into the cell" in outcome
    assert fixed.source in outcome
    # The re-run's own output lands in the card.
    outputs = card.output.outputs
    assert outputs[0] == {"output_type": "stream", "name": "stdout",
                          "text": "numbers: 3072.0\n"}
    assert outputs[-1]["data"]["text/plain"] == "(8, 128)"
    assert card.traceback_box.layout.display == "none"
    assert card.nested is None
    # it worked: the card folds to its header and the outcome, and unfolds on a click
    assert card.folded
    card.unfold.click()
    assert not card.folded
    # The static copy (what a saved notebook keeps) carries the outcome too.
    static = card.static_bundle()
    assert "✓ Fixed." in _text(static["text/html"])
    assert "Fixed: 'Remove collective_axes'" in static["text/plain"]


def test_failing_fix_shows_the_new_error_diagnosed_in_a_nested_card(loaded: Notebook) -> None:
    card = _card(loaded, HELPER, "out = scaled(jnp.ones((8, 128)))")
    assert card.diagnosis.code == "JNH102"
    card.click(_button(card, "Call it under jax.jit"))
    result = card.result
    assert result is not None
    assert not result.ok
    outcome = _text(card.outcome.value)
    assert "✗ Not fixed. “Call it under jax.jit” failed:" in outcome
    assert "ValueError: run_scoped lowering outside of Pallas" in outcome
    (traceback,) = card.traceback_output.outputs
    assert traceback["output_type"] == "error"
    assert traceback["ename"] == "ValueError"
    assert "run_scoped lowering outside of Pallas" in strip_ansi("\n".join(traceback["traceback"]))
    assert card.traceback_box.layout.display is None
    # The new error is itself diagnosed: a card inside the card, with its own buttons.
    nested = card.nested
    assert nested is not None
    assert card.nested_box.children == (nested.widget,)
    assert nested.diagnosis.code == "JNH101"
    assert "jax.jit(scaled)" in _details(nested)
    assert [b.description for b in nested.buttons] == [
        "Fix 1: Run as one program", "Fix 2: Remove collective_axes"]
    nested.click(_button(nested, "Remove collective_axes"))
    assert nested.result is not None
    assert nested.result.ok
    assert float(loaded["out"].sum()) == 3.0 * 8 * 128
    # Both cells need the chain's changes: In [3] lost collective_axes, In [4] got jax.jit.
    outcome = _text(nested.outcome.value)
    assert "Fixed source of In [3]" in outcome
    assert "Fixed source of In [4]" in outcome
    assert "out = jax.jit(scaled)(jnp.ones((8, 128)))" in outcome
    chain = _text(card.static_bundle()["text/html"])
    assert chain.index("✗ Not fixed.") < chain.index("Collective run_scoped") \
        < chain.index("✓ Fixed.")


def test_a_fix_that_cannot_apply_has_its_button_disabled_with_the_reason(
        loaded: Notebook, tmp_path: Path) -> None:
    module = tmp_path / "card_helpers.py"
    module.write_text("from jax.experimental import pallas as pl\n"
                      "from jax.experimental.pallas import tpu as pltpu\n\n\n" + HELPER + "\n")
    loaded.shell.user_ns["sys"] = sys
    try:
        card = _card(loaded, f"sys.path.insert(0, {str(tmp_path)!r})\n"
                             "from card_helpers import scaled", CALL)
        number = _button(card, "Remove collective_axes")
        assert card.buttons[number - 1].disabled
        reason = card.diagnosis.fixes[number - 1].unavailable
        assert reason
        assert "Cannot apply here: " + reason in _details(card)
        assert f"Where: {module}, line 9, in scaled" in _details(card)
        card.click(_button(card, "Run as one program"))
        assert card.buttons[number - 1].disabled  # still disabled after another fix ran
        assert card.result is not None
        assert card.result.ok
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("card_helpers", None)


def test_user_code_and_error_text_are_escaped(loaded: Notebook) -> None:
    evil = HELPER.replace(
        'collective_axes="core")',
        'collective_axes="core")  # "<script>alert(1)</script>"',
    )
    card = _card(loaded, evil, CALL)
    markup = [card.header.value, card.static_bundle()["text/html"], card.details.value]
    for part in markup:
        assert "<script>" not in part
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in card.details.value
    assert '# "<script>alert(1)</script>"' in _details(card)
    remove = card.diagnosis.fixes[_button(card, "Remove collective_axes") - 1]
    assert "<script>alert(1)</script>" in remove.preview()
    assert remove.preview() in _details(card)
    card.click(_button(card, "Remove collective_axes"))
    assert "<script>" not in card.outcome.value
    assert '# "<script>alert(1)</script>"' in _text(card.outcome.value)


def test_escaping_of_every_piece_of_a_location() -> None:
    location = Location(kind="file", filename="/tmp/<b>.py", lineno=2, line="y = '<i>'",
                        function="<lambda>", source="x = 1\ny = '<i>' & 2\n")
    window = source_window(location)
    assert "<i>" not in window
    assert "y = &#x27;&lt;i&gt;&#x27; &amp; 2" in window
    assert esc('"<script>"') == "&quot;&lt;script&gt;&quot;"


def test_terminal_like_shell_keeps_the_text_path_and_gains_html(loaded: Notebook) -> None:
    assert not widget_frontend(loaded.shell)
    loaded.ok(HELPER)
    failed = loaded.run(CALL)
    (bundle,) = failed.bundles
    assert set(bundle) == {"text/plain", "text/html", MIME_TYPE}
    assert WIDGET_VIEW_MIME not in bundle
    assert "jax_nbhelp [JNH101]" in bundle["text/plain"]
    assert "In [3], line 5, in scaled" in _text(bundle["text/html"])


def test_static_copy_and_live_card_are_paired(loaded: Notebook) -> None:
    card = _card(loaded, HELPER, CALL)
    static = card.static_bundle()
    assert f'class="jnh-static-{card.card_id}"' in static["text/html"]
    assert f"jnh-live-{card.card_id}" in card.widget._dom_classes
    # The diagnosis, and the handle the JupyterLab extension applies its fixes by.
    assert static[MIME_TYPE] == {**card.diagnosis.to_json(), "card_id": card.card_id,
                                 "session": STATE.session, "versions": jax_probe.versions()}
    view = card.widget_bundle()
    assert view[WIDGET_VIEW_MIME]["model_id"] == card.widget.model_id
    assert view["text/plain"] == ""


@pytest.mark.parametrize("module", ["jax_nbhelp", "jax_nbhelp.show.display"])
def test_importing_does_not_import_ipywidgets(module: str) -> None:
    code = f"import sys, {module}; print('ipywidgets' in sys.modules, 'jax' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False, cwd=Path(__file__).parent.parent)
    assert proc.stdout.split() == ["False", "False"], proc.stderr
