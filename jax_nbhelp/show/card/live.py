"""The live card where the JupyterLab extension does not run (VS Code, Colab, Notebook 6,
JupyterLab with the extension disabled): the extension's own TypeScript card, built as an
anywidget module (``static/card.js``, from ``labextension/src/widget.ts``), so the card is
written once.

Imported only when a card is shown, so ``import jax_nbhelp`` never imports anywidget.

The widget's model holds the diagnosis bundle, and the answers so far (``outcomes``, which
a view drawn later replays). A click sends ``{"kind": "apply", "card_id",
"number"}``; the fix runs here, in the comm's handler, as the JupyterLab extension's request
runs it (``shell/frontend.apply``), and the answer goes back as ``{"kind": "result", ...}``
with what the fix printed, after ``{"kind": "progress", ...}`` reports while it runs. A new
error's card is nested under the failed fix, and its clicks come the same way, by card id.

Next to the widget sits the static copy (``html.static_html``): what a saved notebook keeps
and a frontend without widgets shows. It is brought up to date after each fix.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import anywidget
import traitlets
from IPython.utils.capture import capture_output

from jax_nbhelp.core.model import Diagnosis, Fix, FixProgress, FixResult
from jax_nbhelp.core.session import Session, current, edits_to_copy
from jax_nbhelp.jaxapi.jax_probe import versions
from jax_nbhelp.show.bundle import bundle_json, not_applied_json, register, result_json
from jax_nbhelp.show.card import html
from jax_nbhelp.show.render_text import MIME_TYPE, render_diagnosis
from jax_nbhelp.show.view import CardView, card_view, check_number, outcome_view

WIDGET_VIEW_MIME = "application/vnd.jupyter.widget-view+json"
STATIC = Path(__file__).resolve().parent.parent / "static"


def built() -> bool:
    """Whether the card's module is built (``pip install`` builds it with the extension)."""
    return (STATIC / "card.js").is_file()


class CardWidget(anywidget.AnyWidget):
    """The widget itself: the module, its stylesheet and the diagnosis bundle."""

    _esm = STATIC / "card.js"
    _css = STATIC / "card.css"
    diagnosis = traitlets.Dict().tag(sync=True)
    # the answers sent so far, in order: a view drawn later (the output shown again, a
    # second view of the notebook) replays them, so it shows what the first one shows
    outcomes: traitlets.List[dict[str, Any]] = traitlets.List().tag(sync=True)


class LiveCard:
    """One diagnosis as the anywidget card, with the fixes run from its clicks."""

    def __init__(self, diagnosis: Diagnosis, session: Session | None = None) -> None:
        self.diagnosis = diagnosis
        self.session = session or current()
        self.card_id = register(diagnosis, session=self.session)
        # what each card of the chain ran: card id -> (its diagnosis, the fix, its outcome)
        self.applied: dict[str, tuple[Diagnosis, Fix, FixResult, str | None]] = {}
        self._views: dict[int, tuple[Diagnosis, CardView]] = {}
        self._versions = versions()  # what the kernel runs, for every view's Markdown
        self.widget = CardWidget(diagnosis=bundle_json(diagnosis, self.card_id,
                                                       self._view(diagnosis), self.session,
                                                       self._versions))
        # with the JupyterLab extension, its native card shows and this one draws nothing
        # and hides (notebook.css); the static copy hides while this one is on the page
        # (html.hide_rules)
        self.widget.add_class("jnh-widget-card")
        self.widget.add_class(f"jnh-live-{self.card_id}")
        self.widget.on_msg(self._on_message)
        self._published = False

    # -- clicks -----------------------------------------------------------------------------

    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict) or content.get("kind") != "apply":
            return
        self.apply(content.get("card_id"), content.get("number"))

    def apply(self, card_id: Any, number: Any) -> dict[str, Any]:
        """Run fix ``number`` (1-based) of the card ``card_id`` (this one or one nested in
        it) as a click does, send the answer to the browser and return it."""
        diagnosis = self.session.cards.get(card_id)
        if diagnosis is None or (card_id != self.card_id and card_id not in self._nested()):
            answer = not_applied_json(False)
            outputs: list[dict[str, str]] = []
        elif type(number) is not int or not 1 <= number <= len(diagnosis.fixes):
            answer, outputs = not_applied_json(True, f"there is no fix {number}"), []
        else:
            fix = diagnosis.fixes[number - 1]
            result, outputs = self._run(card_id, number, fix)
            new_view = self._view(result.diagnosis) if result.diagnosis is not None else None
            answer = result_json(result, edits_to_copy(fix), fix, self.session, new_view,
                                 self._versions, check_number(diagnosis))
            new_id = (answer.get("diagnosis") or {}).get("card_id")
            self.applied[card_id] = (diagnosis, fix, result, new_id)
            self.republish()
        message = {"kind": "result", "card_id": card_id, "number": number, "result": answer,
                   "outputs": outputs}
        self.widget.outcomes = [*self.widget.outcomes, message]
        self.widget.send(message)
        return answer

    def _nested(self) -> set[str]:
        """The card ids of the new errors' cards nested in this one."""
        return {new_id for *_, new_id in self.applied.values() if new_id is not None}

    def _run(self, card_id: str, number: int, fix: Fix) -> tuple[FixResult, list[dict[str, str]]]:
        def progress(now: FixProgress) -> None:  # from the fix's progress thread
            with contextlib.suppress(Exception):
                self.widget.send({"kind": "progress", "card_id": card_id,
                                  "progress": {"card_id": card_id, "fix": number,
                                               **now.to_json()}})

        try:
            with capture_output() as captured:
                result = fix.apply(progress=progress, session=self.session)
        except Exception as exc:  # a bug in jax_nbhelp must not kill the comm handler
            return FixResult(ok=False, fix_label=fix.label,
                             error=f"jax_nbhelp failed to run the fix: "
                                   f"{type(exc).__name__}: {exc}"), []
        # a display made while the fix ran (a plot, a table) is given as its text
        shown = "".join(str(output.data.get("text/plain", "")) + "\n"
                        for output in captured.outputs)
        outputs = [{"name": name, "text": text}
                   for name, text in (("stdout", captured.stdout + shown),
                                      ("stderr", captured.stderr)) if text]
        return result, outputs

    # -- the static copy --------------------------------------------------------------------

    def _view(self, diagnosis: Diagnosis) -> CardView:
        """The card view of ``diagnosis`` (this card's or a nested one), computed once."""
        found = self._views.get(id(diagnosis))
        if found is None or found[0] is not diagnosis:
            found = self._views[id(diagnosis)] = (diagnosis,
                                                  card_view(diagnosis, self._versions))
        return found[1]

    def _static_body(self, card_id: str, diagnosis: Diagnosis, top: bool) -> str:
        outcome = ""
        if card_id in self.applied:
            _, fix, result, new_id = self.applied[card_id]
            outcome = html.outcome_html(outcome_view(fix, result, edits_to_copy(fix),
                                                     check=check_number(diagnosis)),
                                        traceback=result.traceback)
            if new_id is not None and result.diagnosis is not None:
                outcome += self._static_body(new_id, result.diagnosis, False)
        return html.card_html(diagnosis, outcome, magic_hint=top, view=self._view(diagnosis))

    def _static_text(self, card_id: str, diagnosis: Diagnosis) -> str:
        text = render_diagnosis(diagnosis, self._view(diagnosis))
        if card_id in self.applied:
            _, fix, result, new_id = self.applied[card_id]
            text += "\n\n" + outcome_view(fix, result, check=check_number(diagnosis)).plain
            if new_id is not None and result.diagnosis is not None:
                text += "\n\n" + self._static_text(new_id, result.diagnosis)
        return text

    def static_bundle(self) -> dict[str, Any]:
        return {
            "text/plain": self._static_text(self.card_id, self.diagnosis),
            "text/html": html.static_html(self.card_id,
                                          self._static_body(self.card_id, self.diagnosis, True)),
            MIME_TYPE: bundle_json(self.diagnosis, self.card_id, self._view(self.diagnosis),
                                   self.session, self._versions),
        }

    def widget_bundle(self) -> dict[str, Any]:
        view = {"version_major": 2, "version_minor": 0, "model_id": self.widget.model_id}
        # No text: a frontend without widgets shows the static copy's text already, and an
        # empty text/plain would be a second, empty output beside it there (JupyterLab,
        # nbconvert and consoles show nothing for a bundle they cannot render).
        return {WIDGET_VIEW_MIME: view}

    def display(self) -> None:
        """Show the static copy, then the live card right after it."""
        from IPython.display import display

        display(self.static_bundle(), raw=True, display_id=self.card_id)
        display(self.widget_bundle(), raw=True)
        self._published = True

    def republish(self) -> None:
        """Bring the static copy up to date with the outcomes, so a saved notebook keeps them."""
        if not self._published:
            return
        from IPython.display import update_display

        with contextlib.suppress(Exception):  # best effort: the live card shows the outcome
            update_display(self.static_bundle(), raw=True, display_id=self.card_id)

