"""The live card: standard ipywidgets (works in JupyterLab, Notebook 7, VS Code and Colab).

Imported only when a card is shown, so ``import jax_nbhelp`` never imports ipywidgets.

A click runs the fix in the kernel with every button disabled. What the re-run prints,
displays or raises is captured in the kernel and put into an ``Output`` widget, so it lands
inside the card in every frontend (and in tests, which read ``card.output.outputs``).
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets
from IPython.utils.capture import capture_output

from jax_nbhelp.core.model import Diagnosis, Fix, FixProgress, FixResult
from jax_nbhelp.core.state import current_shell, edits_to_copy
from jax_nbhelp.show.bundle import bundle_json, register
from jax_nbhelp.show.card import html
from jax_nbhelp.show.render_text import MIME_TYPE, render_diagnosis

WIDGET_VIEW_MIME = "application/vnd.jupyter.widget-view+json"


class DiagnosisCard:
    """One diagnosis with a button per fix; a failed fix nests the card of its new error."""

    def __init__(self, diagnosis: Diagnosis, *, parent: DiagnosisCard | None = None) -> None:
        self.diagnosis = diagnosis
        self.parent = parent
        self.card_id: str = parent.card_id if parent is not None else uuid.uuid4().hex[:12]
        self.fix: Fix | None = None
        self.result: FixResult | None = None
        self.nested: DiagnosisCard | None = None
        self.running = False
        self._published = False

        # The glance (title, code, the cause in one sentence with its place), the
        # recommended fix as the primary button with its line, the others as plain buttons,
        # then everything else in closed details: the layout of the native card.
        self.header = widgets.HTML(value=html.style_tag() + html.glance_html(diagnosis))
        recommended, order, heading = html.fix_groups(diagnosis)
        self.buttons = [self._button(number, fix, number == recommended)
                        for number, fix in enumerate(diagnosis.fixes, 1)]
        rows: list[widgets.Widget] = []
        if recommended is not None:
            primary = widgets.HBox([self.buttons[recommended - 1],
                                    widgets.HTML(value=html.recommended_line_html(diagnosis))])
            primary.add_class("jnh-primary")
            rows.append(primary)
        if order:
            others = widgets.HBox([widgets.HTML(value=f'<span class="jnh-muted">{heading}:'
                                                      "</span>"),
                                   *(self.buttons[n - 1] for n in order)])
            others.add_class("jnh-others")
            rows.append(others)
        self.details = widgets.HTML(value=html.details_html(diagnosis))
        self.body = widgets.VBox([*rows, self.details])
        # After a fix worked the card folds to its header and outcome; this unfolds it.
        self.unfold = widgets.Button(description="Show the diagnosis",
                                     layout=widgets.Layout(width="auto", display="none"))
        self.unfold.add_class("jnh-unfold")
        self.unfold.on_click(lambda _button: self.set_folded(not self.folded))
        self.status = widgets.HTML(value="")
        # grid steps done (or time against the estimate) while a long fix runs
        self.progress = widgets.FloatProgress(value=0.0, min=0.0, max=1.0,
                                              layout=widgets.Layout(display="none"))
        self.output = widgets.Output()
        # The re-run's traceback, folded: the nested card below explains the new error.
        self.traceback_output = widgets.Output()
        self.traceback_box = widgets.Accordion(children=[self.traceback_output],
                                               selected_index=None)
        self.traceback_box.layout.display = "none"
        self.outcome = widgets.HTML(value="")
        self.nested_box = widgets.VBox([])
        self.widget = widgets.VBox([self.header, self.unfold, self.body, self.status,
                                    self.progress, self.output, self.traceback_box,
                                    self.outcome, self.nested_box])
        self.widget.add_class("jnh-card")
        if parent is None:
            self.widget.add_class(f"jnh-live-{self.card_id}")
            # The JupyterLab extension applies fixes of this card by its id.
            register(diagnosis, self.card_id)

    def _button(self, number: int, fix: Fix, primary: bool) -> widgets.Button:
        # safe fixes in the card's colours, the primary one filled; a fix that changes the
        # numbers is marked as a warning wherever it sits
        style = ("primary" if primary else "") if fix.safe else "warning"
        button = widgets.Button(
            description=f"Fix {number}: {fix.label}",
            tooltip=fix.summary,
            disabled=fix.unavailable is not None,
            button_style=style,
            layout=widgets.Layout(width="auto"),
        )
        button.add_class("jnh-fix-button")
        button.on_click(self._handler(number))
        return button

    @property
    def folded(self) -> bool:
        return bool(self.body.layout.display == "none")

    def set_folded(self, folded: bool) -> None:
        """Fold the card to its header and outcome, or unfold it."""
        self.body.layout.display = "none" if folded else None
        self.unfold.layout.display = None
        self.unfold.description = "Show the diagnosis" if folded else "Fold the diagnosis"

    # -- clicking -------------------------------------------------------------------------

    def _handler(self, number: int) -> Callable[[Any], None]:
        def on_click(_button: Any) -> None:
            self.apply(number)

        return on_click

    def apply(self, number: int) -> FixResult | None:
        """Run fix ``number`` (1-based) as its button does; None while another one runs."""
        if self.running:
            return None
        fix = self.diagnosis.fixes[number - 1]
        self.running = True
        self._set_buttons(enabled=False)
        self.status.value = self._running_html(number, fix, None)
        self.output.outputs = self.traceback_output.outputs = ()
        self.traceback_box.layout.display = "none"
        self.outcome.value = ""
        self.nested_box.children = ()
        self.nested = None
        try:
            result = self._run(fix, number)
        finally:
            self.status.value = ""
            self.progress.layout.display = "none"
            self.running = False
            self._set_buttons(enabled=True)
        self.fix, self.result = fix, result
        self.outcome.value = html.outcome_html(fix, result, to_copy=edits_to_copy(fix))
        if result.diagnosis is not None:
            self.nested = DiagnosisCard(result.diagnosis, parent=self)
            self.nested_box.children = (self.nested.widget,)
        if result.ok:
            self.set_folded(True)  # "✓ Fixed" is what is left to read
        self.root().republish()
        return result

    def _running_html(self, number: int, fix: Fix, now: FixProgress | None) -> str:
        # ipywidgets cannot hear a click while the kernel runs the fix: the kernel's own
        # interrupt is the way to stop it, and the fix turns it into "Stopped".
        time = ("" if now is None else f" {html.esc(now.text)}; interrupt the kernel (■) to "
                "stop only the fix")
        return (f'<div class="jnh-running">Running fix {number}, “{html.esc(fix.label)}”…'
                f"{time}</div>")

    def _run(self, fix: Fix, number: int) -> FixResult:
        def progress(now: FixProgress) -> None:  # from the fix's progress thread
            self.status.value = self._running_html(number, fix, now)
            if now.fraction is not None:
                self.progress.value = now.fraction
                self.progress.bar_style = "" if now.steps else "info"  # info: from the estimate
                self.progress.layout.display = None
            else:
                self.progress.layout.display = "none"

        try:
            with capture_output() as captured:
                result = fix.apply(progress=progress)
        except Exception as exc:  # a bug in jax_nbhelp must not kill the comm handler
            return FixResult(ok=False, fix_label=fix.label,
                             error=f"jax_nbhelp failed to run the fix: "
                                   f"{type(exc).__name__}: {exc}")
        outputs: list[dict[str, Any]] = []
        if captured.stdout:
            outputs.append({"output_type": "stream", "name": "stdout", "text": captured.stdout})
        if captured.stderr:
            outputs.append({"output_type": "stream", "name": "stderr", "text": captured.stderr})
        for shown in captured.outputs:
            outputs.append({"output_type": "display_data", "data": dict(shown.data),
                            "metadata": dict(shown.metadata or {})})
        if result.ok and result.value is not None:
            outputs.append(_value_output(result.value))
        self.output.outputs = tuple(outputs)
        if not result.ok and result.traceback:
            name, _, message = (result.error or "").partition(": ")
            self.traceback_output.outputs = ({"output_type": "error", "ename": name,
                                              "evalue": message,
                                              "traceback": result.traceback.splitlines()},)
            self.traceback_box.set_title(0, f"Traceback of the re-run ({name or 'error'})")
            self.traceback_box.layout.display = None
        return result

    def _set_buttons(self, *, enabled: bool) -> None:
        for button, fix in zip(self.buttons, self.diagnosis.fixes, strict=True):
            button.disabled = not enabled or fix.unavailable is not None

    def click(self, number: int) -> None:
        """Press the button of fix ``number`` (what a user's click does)."""
        self.buttons[number - 1].click()

    # -- the static copy ------------------------------------------------------------------

    def root(self) -> DiagnosisCard:
        card = self
        while card.parent is not None:
            card = card.parent
        return card

    def static_body(self) -> str:
        """This card and the chain below it as static HTML (no buttons, with outcomes)."""
        outcome = ""
        if self.fix is not None and self.result is not None:
            outcome = html.outcome_html(self.fix, self.result, traceback=True,
                                        to_copy=edits_to_copy(self.fix))
            if self.nested is not None:
                outcome += self.nested.static_body()
        return html.card_html(self.diagnosis, outcome, magic_hint=self.parent is None)

    def static_text(self) -> str:
        text = render_diagnosis(self.diagnosis)
        if self.result is not None:
            text += "\n\n" + str(self.result)
            if self.nested is not None:
                text += "\n\n" + self.nested.static_text()
        return text

    def static_bundle(self) -> dict[str, Any]:
        return {
            "text/plain": self.static_text(),
            "text/html": html.static_html(self.card_id, self.static_body()),
            MIME_TYPE: bundle_json(self.diagnosis, self.card_id),
        }

    def widget_bundle(self) -> dict[str, Any]:
        view = {"version_major": 2, "version_minor": 0, "model_id": self.widget.model_id}
        # Empty text: frontends without widgets already show the static copy's text.
        return {WIDGET_VIEW_MIME: view, "text/plain": ""}

    def display(self) -> None:
        """Show the static copy, then the live card right after it (see styles.hide_rules)."""
        from IPython.display import display

        display(self.static_bundle(), raw=True, display_id=self.card_id)
        display(self.widget_bundle(), raw=True)
        self._published = True

    def republish(self) -> None:
        """Bring the static copy up to date with the outcome, so a saved notebook keeps it."""
        if not self._published:
            return
        from IPython.display import update_display

        # Best effort: the live card already shows the outcome.
        with contextlib.suppress(Exception):
            update_display(self.static_bundle(), raw=True, display_id=self.card_id)


def _value_output(value: Any) -> dict[str, Any]:
    shell = current_shell()
    if shell is None:
        return {"output_type": "stream", "name": "stdout", "text": repr(value) + "\n"}
    data, metadata = shell.display_formatter.format(value)
    return {"output_type": "display_data", "data": data, "metadata": metadata}
