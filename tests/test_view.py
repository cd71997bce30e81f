"""The view model (show/view.py): what a card says is decided once, and every form of the card
(the text, the static HTML, the bundle) says the same.

The diagnoses here are plain data built by hand: the view renders core's model and nothing
else, so no JAX error is needed to test it (the real ones go through it in test_card.py,
test_bundle_contract.py and the browser tests).
"""

from __future__ import annotations

import html
import re

import jax_nbhelp  # noqa: F401  (wires str() and preview() to the show layer)
from jax_nbhelp.core.model import CellEdit, CellRun, Diagnosis, Estimate, Fix, FixResult, Location
from jax_nbhelp.show import view
from jax_nbhelp.show.card.html import card_html, outcome_html
from jax_nbhelp.show.render_text import render_diagnosis

SHARED = "The kernel runs as written, simulated on the CPU."
PLACE = Location("cell", "<cell>", 2, "y = f(x)", cell=4, source="x = 1\ny = f(x)\n")


def _fix(label: str, *, safe: bool = True, kind: str = "rewrite", setup: str | None = None,
         estimate: Estimate | None = None, unavailable: str | None = None) -> Fix:
    edits = (CellEdit("In [4]", 4, "y = f(x)\n", "y = g(x)\n"),) if kind == "rewrite" else ()
    return Fix(label=label, summary=f"{label}: what it does.", safety=f"{SHARED} Own {label}.",
               safe=safe, kind=kind,  # type: ignore[arg-type]
               runs=(CellRun("In [4]", "y = g(x)\n", cell=4),), edits=edits,
               setup_line=setup, estimate=estimate, unavailable=unavailable,
               runtime_description="Runs under a switch." if kind == "runtime" else "")


def _diagnosis(*fixes: Fix, **changes: object) -> Diagnosis:
    base = {"code": "JNH999", "name": "an-error", "title": "An error",
                "explanation": f"It failed at {PLACE.label}. More of why.", "why": "Because.",
                "error": "ValueError: no", "location": PLACE, "fixes": fixes}
    base.update(changes)
    return Diagnosis(**base)  # type: ignore[arg-type]


def _text(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def test_the_lasting_safe_fix_is_recommended_and_every_form_says_so() -> None:
    diagnosis = _diagnosis(_fix("Run once", kind="runtime"), _fix("Changes it", safe=False),
                           _fix("Rewrite it"))
    shown = view.card_view(diagnosis)
    assert shown.recommended == 3
    assert shown.recommended_why == view.LASTS_REWRITE
    assert shown.order == (3, 1, 2)
    assert shown.others_heading == "Other fixes"
    assert shown.place == PLACE.label
    assert shown.place_named
    static = _text(card_html(diagnosis, view=shown))
    text = render_diagnosis(diagnosis, shown)
    assert shown.cause == f"It failed at {PLACE.label}."
    assert shown.recommended_line
    assert shown.recommended_line in static
    assert f"({PLACE.label})" not in static  # named once, by the cause
    assert "[recommended]" in text.split("3. Rewrite it")[1].split("\n")[0]
    # the sentence all fixes share is said once, and each fix keeps only its own
    assert shown.shared_line == f"All of these fixes: {SHARED}"
    assert [fix.safety for fix in shown.fixes] == [f"Own {f.label}." for f in diagnosis.fixes]
    assert static.count(SHARED) == 1
    assert shown.fix(2).badge == "Changes what the program computes:"
    assert shown.fix(1).kernel_only
    assert shown.fix(3).kernel_only is None
    assert shown.fix(3).button_aria == "Fix 3: Rewrite it (applies to the cell)"


def test_a_fix_that_changes_the_numbers_is_never_recommended() -> None:
    shown = view.card_view(_diagnosis(_fix("Changes it", safe=False),
                                      _fix("Cannot", unavailable="the cell is in a file")))
    assert shown.recommended is None
    assert shown.recommended_line is None
    assert shown.others == (1, 2)
    assert shown.others_heading == "Fixes"
    assert shown.fix(2).unavailable == "Cannot apply here: the cell is in a file"
    assert not shown.fix(2).available


def test_a_long_fix_says_so_before_it_runs_and_while_it_runs() -> None:
    long = Estimate(steps=32768, mode="tpu", seconds=657.0)
    shown = view.card_view(_diagnosis(_fix("Interpret", kind="runtime", setup="%x on",
                                           estimate=long)))
    assert shown.recommended_why == view.LASTS_MODE
    assert shown.recommended_line is not None
    assert shown.recommended_line.endswith("Interpreted, roughly 11 min.")
    long_line = shown.fix(1).long
    assert long_line is not None
    assert "32,768 grid steps" in long_line
    assert shown.fix(1).expected == " of roughly 11 min"
    assert shown.fix(1).running == "Running fix 1, “Interpret”…"


def test_the_banner_stands_in_for_fixes() -> None:
    assert view.card_view(_diagnosis()).banner == view.NO_FIX_LINE
    hidden = view.card_view(_diagnosis(hidden_fixes=2))
    assert (hidden.banner_kind, hidden.banner) == ("hidden", view.hidden_line(2))
    general = view.card_view(_diagnosis(general=True, hints=("Use jnp.where.",)))
    assert general.banner == view.GENERAL_LINE
    assert general.general_note
    assert general.hints_line == "JAX suggests: Use jnp.where."
    assert general.details_summary.startswith("Details: where it came from")
    flat = " ".join(render_diagnosis(_diagnosis(hidden_fixes=2)).split())
    assert hidden.banner is not None
    assert hidden.banner in flat
    # the text form of the general view ends with its own note in place of a banner
    general_text = " ".join(render_diagnosis(_diagnosis(general=True), details=True).split())
    assert general.general_note is not None
    assert general.general_note in general_text


def test_the_markdown_holds_the_place_the_error_and_the_versions() -> None:
    shown = view.card_view(_diagnosis(), {"python": "3.11.7", "jax": "0.10.2",
                                          "jaxlib": None, "backend": "cpu"})
    assert shown.markdown.startswith("### An error (jax_nbhelp JNH999)")
    assert "2 → y = f(x)" in shown.markdown
    assert "```\nValueError: no\n```" in shown.markdown
    assert shown.markdown_versions == "**Versions:** python 3.11.7, jax 0.10.2, backend cpu"
    assert view.fence("a ``` b").startswith("````\n")


def test_each_outcome_reads_the_same_in_text_and_html() -> None:
    rewrite, mode = _fix("Rewrite it"), _fix("Interpret", kind="runtime", setup="%x on")
    fixed = view.outcome_view(rewrite, FixResult(ok=True, fix_label="Rewrite it", seconds=0.1234),
                              value="3.0")
    assert (fixed.kind, fixed.headline, fixed.fold) == ("fixed", "✓ Fixed.", True)
    assert fixed.text == "“Rewrite it” ran without error in 0.12 s."
    assert fixed.value == "Out: 3.0"
    assert [copy.source for copy in fixed.copies] == ["y = g(x)\n"]
    assert fixed.plain == str(FixResult(ok=True, fix_label="Rewrite it", seconds=0.1234))
    kept = view.outcome_view(mode, FixResult(ok=True, fix_label="Interpret", seconds=1.0))
    assert kept.keep_line == "%x on"
    assert kept.keep
    assert "`%x on`" in kept.keep
    assert "<code>%x on</code>" in outcome_html(kept)
    assert kept.copies == ()
    assert kept.unchanged
    assert kept.unchanged.startswith("Your notebook")
    again = view.outcome_view(mode, FixResult(ok=True, fix_label="Interpret", seconds=1.0,
                                              repeated=("In [4], line 2",)))
    assert (again.kind, again.fold) == ("repeated", False)
    assert "In [4], line 2" in again.text
    failed = view.outcome_view(rewrite, FixResult(
        ok=False, fix_label="Rewrite it", error="ValueError: again", restored=("f",),
        traceback="Traceback", diagnosis=_diagnosis()))
    assert (failed.headline, failed.error) == ("✗ Not fixed.", "ValueError: again")
    assert failed.restored == "Undone: f as before the fix."
    assert failed.next
    assert "start from your code as “Rewrite it” rewrote it" in failed.next
    static = _text(outcome_html(failed, traceback="Traceback"))
    for sentence in (failed.headline, failed.text, failed.restored, failed.next):
        assert sentence in static
    stopped = view.outcome_view(rewrite, FixResult(ok=False, fix_label="Rewrite it",
                                                   stopped=True, error="Stopped after 4 s."))
    assert (stopped.headline, stopped.text) == ("■ Stopped.", "Stopped after 4 s.")
    assert view.not_applied_view().text == view.UNKNOWN_CARD


def test_the_view_is_plain_json() -> None:
    import json

    shown = view.card_view(_diagnosis(_fix("Rewrite it")))
    data = json.loads(json.dumps(shown.to_json()))
    assert data["fixes"][0]["heading"] == "Fix 1: Rewrite it"
    assert data["fixes"][0]["preview"] == _fix("Rewrite it").preview()
    assert data["order"] == [1]


def test_the_places_are_said_once_and_every_form_says_them_alike() -> None:
    helper = Location("file", "/home/me/model.py", 4, "    return x @ w", function="forward",
                      source="import jax\n\ndef forward(x, w):\n    return x @ w")
    called = Location("cell", "<cell>", 2, "y = forward(x, w)", function="<module>", cell=7,
                      source="x = 1\ny = forward(x, w)\nz = 3\nprint(z)\n")
    diagnosis = _diagnosis(location=helper, call_site=called)
    shown = view.card_view(diagnosis)
    where, reached = shown.places
    assert (where.heading, where.within) == ("Where:", ", in forward")
    assert (reached.heading, reached.within) == ("Reached from:", "")
    assert reached.label == called.label
    # two lines either side of where it happened, one around the call that reached it
    assert [n for n, _ in where.window] == [2, 3, 4]
    assert reached.window == ((1, "x = 1"), (2, "y = forward(x, w)"), (3, "z = 3"))
    text = render_diagnosis(diagnosis, shown)
    static = _text(card_html(diagnosis, view=shown))
    for place in shown.places:
        line = f"{place.heading} {place.label}{place.within}"
        assert line in text
        assert line in static
        assert f"**{place.heading}** {place.label}{place.within}" in shown.markdown
    assert "print(z)" not in static
    assert "print(z)" not in shown.markdown
    assert shown.to_json()["places"][1]["window"] == [[1, "x = 1"], [2, "y = forward(x, w)"],
                                                      [3, "z = 3"]]
