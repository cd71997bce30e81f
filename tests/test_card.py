"""The inline card, clicked in a real shell after the real JAX error.

The live card is the JupyterLab extension's TypeScript card as an anywidget
(``show/card/live.py``); its layout is tested in TypeScript and in a real browser. Here a
click is what the browser sends: a widget's custom message, through ipywidgets' own handler
(``Widget._handle_msg``). What the card answers is read from the widget's ``send``. The static
copy, what a saved notebook keeps, is read as a browser shows it.
"""

from __future__ import annotations

import html as html_lib
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import Notebook

import jax_nbhelp
from jax_nbhelp.core.model import Location
from jax_nbhelp.core.session import current
from jax_nbhelp.jaxapi import jax_probe
from jax_nbhelp.show import view
from jax_nbhelp.show.bundle import bundle_json
from jax_nbhelp.show.card import build_card, live, widget_frontend
from jax_nbhelp.show.card.html import details_html, esc, glance_html, source_window
from jax_nbhelp.show.render_text import MIME_TYPE

pytestmark = pytest.mark.skipif(not live.built(), reason="the card's module is not built")

HELPER = '''\
def scaled(x):
    def body(ref):
        ref[...] = x * 2
        return ref[...] + 1
    return pl.run_scoped(body, pltpu.VMEM(x.shape, x.dtype), collective_axes="core")'''

CALL = "out = jax.jit(scaled)(jnp.ones((8, 128)))"

OLD_KERNEL = ("def add_one_kernel(x_ref, o_ref):\n"
              "    o_ref[...] = pl.load(x_ref, (slice(None),)) + 1\n\n"
              "add_one = pl.pallas_call(add_one_kernel,\n"
              "                         out_shape=jax.ShapeDtypeStruct((8,), jnp.float32))")


def _text(markup: str) -> str:
    """What a browser shows for ``markup``: tags dropped, entities decoded."""
    return html_lib.unescape(re.sub(r"<[^>]+>", "", markup))


class Clicked:
    """A live card with what it sent to the browser."""

    def __init__(self, card: Any) -> None:
        self.card = card
        self.sent: list[dict[str, Any]] = []
        card.widget.send = lambda content, buffers=None: self.sent.append(content)

    @property
    def diagnosis(self) -> Any:
        return self.card.diagnosis

    def click(self, number: int, card_id: str | None = None) -> dict[str, Any]:
        """What a click on fix ``number`` of the card ``card_id`` (default: this one) sends,
        through ipywidgets' handler of custom messages; returns the card's answer."""
        card_id = card_id or self.card.card_id
        self.card.widget._handle_msg({"content": {"data": {"method": "custom", "content": {
            "kind": "apply", "card_id": card_id, "number": number}}}, "buffers": []})
        answer = self.sent[-1]
        assert answer["kind"] == "result"
        assert answer["card_id"] == card_id
        return answer

    def static_text(self) -> str:
        return _text(self.card.static_bundle()["text/html"])


def _card(nb: Notebook, *cells: str) -> Clicked:
    for cell in cells[:-1]:
        nb.ok(cell)
    assert nb.run(cells[-1]).error is not None
    diagnosis = jax_nbhelp.last()
    assert diagnosis is not None
    return Clicked(build_card(diagnosis))


def _number(diagnosis: Any, label: str) -> int:
    return next(n for n, fix in enumerate(diagnosis.fixes, 1) if fix.label == label)


def test_card_shows_cause_location_call_site_and_fixes(loaded: Notebook) -> None:
    card = _card(loaded, HELPER, CALL)
    diagnosis = card.diagnosis
    # the widget carries the bundle the native card reads, and the built module
    bundle = card.card.widget.diagnosis
    shown = view.card_view(diagnosis, jax_probe.versions())
    assert bundle == bundle_json(diagnosis, card.card.card_id, shown)
    assert bundle["view"] == shown.to_json()
    assert bundle["session"] == current().id
    assert current().cards[card.card.card_id] is diagnosis
    assert "export" in card.card.widget._esm
    assert ".jnh-native" in card.card.widget._css
    # the two fixes, then the kernel checkup every kernel card offers
    assert [fix["label"] for fix in bundle["fixes"]] == ["Run as one program",
                                                         "Remove collective_axes",
                                                         "Check this kernel"]
    assert all(fix["available"] for fix in bundle["fixes"])
    # the recommended fix first (Remove collective_axes: it lasts), numbers unchanged
    assert bundle["recommended"] == 2
    assert shown.order == (2, 1, 3)  # the checkup last, never first
    assert shown.check == 3
    assert "Same results. It lasts" in bundle["recommended_line"]
    # at a glance: the title, the code, one sentence of cause with its place
    header = _text(glance_html(diagnosis, shown))
    assert "Collective run_scoped compiled outside a Pallas kernel" in header
    assert "JNH101" in header
    assert shown.cause in header
    assert "In [3], line 5" in header
    assert diagnosis.error not in header  # it sits right above, in the traceback
    details = _text(details_html(diagnosis, shown))
    assert "In [3], line 5, in scaled" in details
    assert "5 →     return pl.run_scoped(body" in details  # the offending line, marked
    assert "Reached from: In [4], line 1" in details
    assert f"1 → {CALL}" in details
    for fix, fix_shown in zip(diagnosis.fixes, shown.fixes, strict=True):
        assert f"{fix_shown.badge} {fix_shown.safety}" in details
        # The preview is exactly the source the fix runs, character for character.
        assert view.preview(fix) in details


def test_clicking_a_fix_runs_it_and_ends_with_fixed(loaded: Notebook) -> None:
    card = _card(loaded, HELPER, CALL + "\nprint('numbers:', float(out.sum()))\nout.shape")
    answer = card.click(_number(card.diagnosis, "Remove collective_axes"))
    result = answer["result"]
    assert result["ok"], result
    assert float(loaded["out"].sum()) == 3.0 * 8 * 128
    # The re-run's own output and its value go into the card.
    assert answer["outputs"] == [{"name": "stdout", "text": "numbers: 3072.0\n"}]
    assert result["value"] == "(8, 128)"
    # The fixed source, to copy into the cell (a widget cannot edit the notebook), is the
    # source the fix ran.
    fixed = card.diagnosis.fixes[1].runs[0]
    assert fixed.changed
    (copy,) = result["copy"]
    assert copy["label"] == "In [3]"
    assert copy["original"] == HELPER
    assert copy["source"] == fixed.source
    # a view of the widget drawn later replays what ran
    assert card.card.widget.outcomes == [answer]
    # The static copy (what a saved notebook keeps) carries the outcome too.
    static = card.card.static_bundle()
    outcome = _text(static["text/html"])
    assert f"✓ Fixed. “Remove collective_axes” ran without error in {result['seconds']:.2f} s." \
        in outcome
    assert "Fixed source of In [3]: copy it into the cell" in outcome
    assert "Fixed: 'Remove collective_axes'" in static["text/plain"]


def test_failing_fix_shows_the_new_error_diagnosed_in_a_nested_card(loaded: Notebook) -> None:
    card = _card(loaded, HELPER, "out = scaled(jnp.ones((8, 128)))")
    assert card.diagnosis.code == "JNH102"
    result = card.click(_number(card.diagnosis, "Call it under jax.jit"))["result"]
    assert not result["ok"]
    assert "ValueError: run_scoped lowering outside of Pallas" in result["error"]
    assert "run_scoped lowering outside of Pallas" in result["traceback"]
    # The new error is itself diagnosed: a card inside the card, whose clicks are heard.
    nested = result["diagnosis"]
    assert nested["code"] == "JNH101"
    assert [fix["label"] for fix in nested["fixes"]] == ["Run as one program",
                                                         "Remove collective_axes"]
    second = card.click(_number(current().cards[nested["card_id"]], "Remove collective_axes"),
                        nested["card_id"])["result"]
    assert second["ok"], second
    assert float(loaded["out"].sum()) == 3.0 * 8 * 128
    # Both cells need the chain's changes: In [3] lost collective_axes, In [4] got jax.jit.
    copies = {copy["label"]: copy["source"] for copy in second["copy"]}
    assert set(copies) == {"In [3]", "In [4]"}
    assert copies["In [4]"] == "out = jax.jit(scaled)(jnp.ones((8, 128)))"
    chain = card.static_text()
    assert chain.index("✗ Not fixed.") < chain.index("Collective run_scoped") \
        < chain.index("✓ Fixed.")
    assert "Its fixes start from your code as “Call it under jax.jit” rewrote it." in chain


def test_a_chain_of_fixes_through_the_card_keeps_the_first(loaded: Notebook) -> None:
    from jax.experimental import pallas as pl

    if hasattr(pl, "load"):
        pytest.skip("this JAX still has pl.load")
    card = _card(loaded, OLD_KERNEL, "out = add_one(jnp.zeros(8))")
    first = card.click(_number(card.diagnosis, "Index the refs"))["result"]
    assert not first["ok"]
    nested = first["diagnosis"]
    assert nested["code"] == "JNH201"
    second = card.click(_number(current().cards[nested["card_id"]], "Pass interpret=True"),
                        nested["card_id"])["result"]
    assert second["ok"], second
    assert loaded["out"].tolist() == [1.0] * 8
    (copy,) = second["copy"]
    assert "pl.load" not in copy["source"]
    assert "interpret=True" in copy["source"]
    assert card.card.static_bundle()["text/plain"].count("jax_nbhelp [") == 2


def test_a_card_id_it_did_not_make_or_a_wrong_number_is_answered(loaded: Notebook) -> None:
    card = _card(loaded, HELPER, CALL)
    other = build_card(card.diagnosis)
    unknown = card.click(1, other.card_id)["result"]
    assert unknown["known"] is False
    assert unknown["view"]["headline"] == "✗ Not applied."
    assert "no longer knows this diagnosis" in unknown["view"]["text"]
    wrong = card.click(99)["result"]
    assert wrong["error"] == "there is no fix 99"
    assert wrong["view"]["text"] == "there is no fix 99"
    assert "out" not in loaded.shell.user_ns


def test_a_fix_that_cannot_apply_says_why(loaded: Notebook, tmp_path: Path) -> None:
    module = tmp_path / "card_helpers.py"
    module.write_text("from jax.experimental import pallas as pl\n"
                      "from jax.experimental.pallas import tpu as pltpu\n\n\n" + HELPER + "\n")
    loaded.shell.user_ns["sys"] = sys
    try:
        card = _card(loaded, f"sys.path.insert(0, {str(tmp_path)!r})\n"
                             "from card_helpers import scaled", CALL)
        number = _number(card.diagnosis, "Remove collective_axes")
        fix = card.card.widget.diagnosis["fixes"][number - 1]
        assert not fix["available"]  # the card's button is disabled, with the reason
        reason = card.diagnosis.fixes[number - 1].unavailable
        assert reason
        assert fix["unavailable"] == reason
        details = _text(details_html(card.diagnosis))
        assert "Cannot apply here: " + reason in details
        assert f"Where: {module}, line 9, in scaled" in details
        assert card.click(_number(card.diagnosis, "Run as one program"))["result"]["ok"]
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("card_helpers", None)


def test_user_code_and_error_text_are_escaped(loaded: Notebook) -> None:
    evil = HELPER.replace(
        'collective_axes="core")',
        'collective_axes="core")  # "<script>alert(1)</script>"',
    )
    card = _card(loaded, evil, CALL)
    shown = view.card_view(card.diagnosis)
    markup = [glance_html(card.diagnosis, shown), card.card.static_bundle()["text/html"],
              details_html(card.diagnosis, shown)]
    for part in markup:
        assert "<script>" not in part
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in details_html(card.diagnosis, shown)
    assert '# "<script>alert(1)</script>"' in _text(details_html(card.diagnosis, shown))
    remove = card.diagnosis.fixes[_number(card.diagnosis, "Remove collective_axes") - 1]
    assert "<script>alert(1)</script>" in view.preview(remove)
    card.click(_number(card.diagnosis, "Remove collective_axes"))
    static = card.card.static_bundle()["text/html"]
    assert "<script>" not in static
    assert '# "<script>alert(1)</script>"' in _text(static)


def test_escaping_of_every_piece_of_a_location() -> None:
    location = Location(kind="file", filename="/tmp/<b>.py", lineno=2, line="y = '<i>'",
                        function="<lambda>", source="x = 1\ny = '<i>' & 2\n")
    window = source_window(view.place_view("Where:", "location", location, 2))
    assert "<i>" not in window
    assert "y = &#x27;&lt;i&gt;&#x27; &amp; 2" in window
    assert esc('"<script>"') == "&quot;&lt;script&gt;&quot;"


def test_terminal_like_shell_keeps_the_text_path_and_gains_html(loaded: Notebook) -> None:
    assert not widget_frontend(loaded.shell)
    loaded.ok(HELPER)
    failed = loaded.run(CALL)
    (bundle,) = failed.bundles
    assert set(bundle) == {"text/plain", "text/html", MIME_TYPE}
    assert live.WIDGET_VIEW_MIME not in bundle
    assert "jax_nbhelp [JNH101]" in bundle["text/plain"]
    assert "In [3], line 5, in scaled" in _text(bundle["text/html"])


def test_static_copy_and_live_card_are_paired(loaded: Notebook) -> None:
    card = _card(loaded, HELPER, CALL).card
    static = card.static_bundle()
    assert f'class="jnh-static-{card.card_id}"' in static["text/html"]
    assert f"jnh-live-{card.card_id}" in card.widget._dom_classes
    # The diagnosis, and the handle the JupyterLab extension applies its fixes by.
    assert static[MIME_TYPE] == bundle_json(card.diagnosis, card.card_id)
    view = card.widget_bundle()
    assert view[live.WIDGET_VIEW_MIME]["model_id"] == card.widget.model_id
    assert set(view) == {live.WIDGET_VIEW_MIME}  # no empty text beside the static copy


@pytest.mark.parametrize("module", ["jax_nbhelp", "jax_nbhelp.show.display"])
def test_importing_does_not_import_a_widget_library(module: str) -> None:
    code = (f"import sys, {module}; print('ipywidgets' in sys.modules, "
            "'anywidget' in sys.modules, 'jax' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False, cwd=Path(__file__).parent.parent)
    assert proc.stdout.split() == ["False", "False", "False"], proc.stderr
