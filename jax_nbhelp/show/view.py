"""What a card says, decided once: the view model every form of the card reads.

``card_view(diagnosis)`` is computed once per shown diagnosis and holds every sentence a
card shows: the cause and its place, the line in place of fixes (classroom mode, the
general view, no mechanical fix), the recommended fix and why, the order of the others,
the safety sentences the fixes share and each fix's own, what each button does, what a
running fix says, the details' summary, the places (where, and the call that reached it:
their headings, names and numbered lines), and the card as Markdown for an issue.
``outcome_view(fix, result)`` is the same for a fix's outcome.

The text form (``render_text``), the static HTML (``card/html.py``) and the bundle read
these; the bundle carries them as ``view`` (``docs/diagnosis.schema.json``), so the
TypeScript card (the JupyterLab extension's and the anywidget module's) lays them out and
computes no sentence of its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from jax_nbhelp.core.model import CellEdit, Diagnosis, Estimate, Fix, FixResult, Location
from jax_nbhelp.core.protocol import is_top_level
from jax_nbhelp.core.units import duration

GENERAL_LINE = ("General view: no cause claimed, no fix. The details show what the line "
                "worked on and what JAX suggests.")
NO_FIX_LINE = "No mechanical fix is correct here; the explanation says what to change."
# the explained view read JAX's check, not the user's intent: it does not say that no fix
# is correct, only that none follows from the check alone
EXPLAINED_LINE = ("No fix offered: the check says which argument JAX refused, not what you "
                  "meant it to be. The details show the check and your call.")
MISMATCH_LINE = ("No fix offered: which value goes to which parameter is yours to say. The "
                 "details show the parameters.")
GENERAL_NOTE = ("(jax_nbhelp's general view: no entry of its catalog knows this error, so it "
                "claims no cause and offers no fix.)")
UNKNOWN_CARD = ("The kernel no longer knows this diagnosis (it restarted): run the failing "
                "cell again for a fresh one.")
TEXT_DETAILS_LINE = "More: %jax_nbhelp details (why, notes, and what each fix runs)."
WRITTEN = "Written into {cells} (Ctrl+Z in a cell undoes it)."

# -- sentences ---------------------------------------------------------------------------

# A sentence ends at . ! or ? followed by a space and what starts a sentence here: a
# capital, a parenthesis or inline code (the catalog's sentences start with `jax.jit` too).
_FIRST = re.compile(r"^(.+?[.!?])(?:\s+(?=[A-Z(`])|$)", re.S)
_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z(`])")


def sentences(text: str) -> list[str]:
    return [part for part in _BREAK.split(text.strip()) if part.strip()]


def first_sentence(text: str) -> str:
    """The cause, for the card's first line."""
    found = _FIRST.match(text.strip())
    return found.group(1) if found else text.strip()


def shared_sentences(texts: Sequence[str]) -> list[str]:
    """The sentences two or more of ``texts`` have, in the order they first appear."""
    counts: dict[str, int] = {}
    for text in texts:
        for sentence in set(sentences(text)):
            counts[sentence] = counts.get(sentence, 0) + 1
    order = dict.fromkeys(sentence for text in texts for sentence in sentences(text))
    return [sentence for sentence in order if counts[sentence] >= 2]


def without_sentences(text: str, shared: Sequence[str]) -> str:
    """``text`` less the ``shared`` sentences (said once above); "(as above)" if none is left."""
    kept = [sentence for sentence in sentences(text) if sentence not in shared]
    return " ".join(kept) if kept else "(as above)"


def keep_sentence(setup_line: str) -> str:
    """How a user keeps a lasting mode in the notebook, one sentence for every surface."""
    return (f"put `{setup_line}` after `%load_ext jax_nbhelp` in its first cell, so that a "
            "fresh run of the notebook needs no click.")


def hidden_line(count: int) -> str:
    """What a card says in place of the fixes classroom mode keeps back."""
    what = "1 fix is" if count == 1 else f"{count} fixes are"
    return (f"Classroom mode: {what} ready but hidden. Try the change yourself first; "
            "%jax_nbhelp fixes shows them.")


# -- which fix comes first ---------------------------------------------------------------

LASTS_MODE = ("It lasts: it stays on for the rest of this kernel, and its set-up line keeps "
              "it in the notebook.")
LASTS_REWRITE = "It lasts: the fixed code goes into your cell, so the next run works too."
RUNS_ONCE = ("It is safe, and runs once: your code stays as it is, so a fresh run of the "
             "notebook fails again.")


def recommend(diagnosis: Diagnosis) -> tuple[int, str] | None:
    """The fix every card puts first (1-based), and why; None when no fix is safe here.

    The lasting fix wins: one that keeps the notebook working after this run (a rewrite
    written into the cells, or a mode kept with its set-up line); then the first safe
    one, which runs once. A fix that changes the numbers is never recommended."""
    usable = [(number, fix) for number, fix in enumerate(diagnosis.fixes, 1)
              if fix.unavailable is None and fix.safe and fix.kind != "check"]
    usable.sort(key=lambda found: found[1].rounding)  # a bit-exact fix before a rounding one
    for number, fix in usable:
        if fix.setup_line:
            return number, LASTS_MODE
        if fix.edits or fix.kind == "rewrite":
            return number, LASTS_REWRITE
    if usable:
        return usable[0][0], RUNS_ONCE
    return None


ROUNDING = "Same values up to float rounding"


def short_line(safe: bool, why: str, estimate: Estimate | None, rounding: bool = False) -> str:
    """The line beside the recommended fix's button."""
    parts = [f"{ROUNDING}." if safe and rounding else
             "Same results." if safe else "Changes the numbers."]
    if why:
        parts.append(why)
    if estimate is not None and estimate.long:
        parts.append(f"Interpreted, roughly {duration(estimate.seconds)}.")
    return " ".join(parts)


# -- a fix ----------------------------------------------------------------------------------

def runs_sentence(fix: Fix) -> str:
    """``Runs: In [2], lines 3-7 (rewritten: def scaled); then In [3] from line 2.``"""
    return "Runs: " + "; then ".join(run.description for run in fix.runs) + "."


def preview(fix: Fix) -> str:
    """The unified diff of the source a fix will run, or a description of a runtime fix,
    then exactly what runs: what ``%jax_nbhelp preview N`` prints and every card shows."""
    if fix.unavailable and not fix.diff:
        return f"Cannot apply: {fix.unavailable}"
    parts: list[str] = []
    if fix.kind == "runtime":
        parts.append(fix.runtime_description)
    if fix.diff:
        parts.append(fix.diff.rstrip("\n"))
    if fix.runs:
        parts.append(runs_sentence(fix))
    if fix.not_rerun:
        parts.append("Not re-run (running them again would repeat what they did): "
                     + "; ".join(fix.not_rerun) + ".")
    if fix.unavailable:
        parts.append(f"Cannot apply here: {fix.unavailable}")
    for run in fix.runs:
        parts.append(f"── {run.description} ──")
        parts.append(run.source.rstrip("\n"))
    return "\n".join(parts)


@dataclass(frozen=True)
class FixView:
    """Everything a card says about one fix."""

    number: int
    label: str
    heading: str  # "Fix 2: Interpret mode from now on"
    summary: str
    safe: bool
    badge: str  # "Safe:" or "Changes what the program computes:"
    safety: str  # its own safety: what the fixes share is said once, above them
    available: bool
    unavailable: str | None  # "Cannot apply here: ..."
    long: str | None  # a long interpreted run, said before it starts
    kernel_only: str | None  # a fix that leaves the notebook as it is says so
    preview: str
    action: str  # "applies to the cell" or "runs in the kernel"
    button_title: str
    button_aria: str
    running: str  # "Running fix 2, “Interpret mode”…"
    expected: str  # " of roughly 8 min", or ""
    text: str  # its lines in the text form's details
    line: str  # its one line in the text form's card: "1. Index the refs [recommended]: ..."

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


KERNEL_ONLY = "Runs in the kernel only: your notebook itself stays as it is."


def _expected(estimate: Estimate | None) -> str:
    """What a running fix says it takes: `` of roughly 8 min``, or nothing unknown."""
    return f" of roughly {duration(estimate.seconds)}" if estimate is not None else ""


def _long_line(estimate: Estimate | None) -> str | None:
    if estimate is None or not estimate.long:
        return None
    return (f"Long: {estimate.steps:,} grid steps interpreted, roughly "
            f"{duration(estimate.seconds)}. The card shows how far it is while it runs, and "
            "Stop ends only the fix.")


CHECK_BADGE = "Checks only:"


def fix_view(number: int, fix: Fix, shared: Sequence[str], recommended: bool) -> FixView:
    if fix.kind == "check":
        return _check_view(number, fix)
    action = "applies to the cell" if fix.edits else "runs in the kernel"
    unavailable = f"Cannot apply here: {fix.unavailable}" if fix.unavailable else None
    badge = (f"{ROUNDING}:" if fix.safe and fix.rounding else "Safe:" if fix.safe
             else "Changes what the program computes:")
    status = ("" if fix.unavailable is None else "  [cannot apply here]") + (
        "  [recommended]" if recommended else "")
    text = [f"{number}. {fix.label}{status}: {fix.summary}", f"{badge} {fix.safety}"]
    if fix.unavailable:
        text.append(f"Why not: {fix.unavailable}")
    return FixView(
        number=number, label=fix.label, heading=f"Fix {number}: {fix.label}",
        summary=fix.summary, safe=fix.safe, badge=badge,
        safety=without_sentences(fix.safety, shared),
        available=fix.unavailable is None, unavailable=unavailable,
        long=_long_line(fix.estimate),
        kernel_only=KERNEL_ONLY if fix.unavailable is None and not fix.edits else None,
        preview=preview(fix), action=action,
        button_title=f"Fix {number}, {action}: {fix.summary}",
        button_aria=f"Fix {number}: {fix.label} ({action})",
        running=f"Running fix {number}, “{fix.label}”…",
        expected=_expected(fix.estimate),
        text="\n".join(text),
        line=(f"{number}. {fix.label}{status}: "
              + (ROUNDING.lower() if fix.safe and fix.rounding else "safe" if fix.safe
                 else "changes what the program computes"
                 + (f" ({fix.changes})" if fix.changes else ""))
              + (" (cannot apply here)" if fix.unavailable else "")).replace(
            "  [cannot apply here]", ""),
    )


def _check_view(number: int, fix: Fix) -> FixView:
    """The kernel checkup offered on a kernel's card: not a fix, so no safety badge of a
    fix, never the primary button; ``%jax_nbhelp fix N`` runs it like the others."""
    unavailable = f"Cannot apply here: {fix.unavailable}" if fix.unavailable else None
    return FixView(
        number=number, label=fix.label, heading=fix.label, summary=fix.summary, safe=True,
        badge=CHECK_BADGE, safety=fix.safety, available=fix.unavailable is None,
        unavailable=unavailable,
        kernel_only=KERNEL_ONLY,
        long=_long_line(fix.estimate),
        preview=preview(fix), action="runs in the kernel",
        button_title=f"{fix.label}: {fix.summary}",
        button_aria=f"{fix.label} (runs in the kernel)",
        running=f"Running “{fix.label}”…",
        expected=_expected(fix.estimate),
        text="\n".join([f"{number}. {fix.label}: {fix.summary}", f"{CHECK_BADGE} {fix.safety}"]
                       + ([f"Why not: {fix.unavailable}"] if fix.unavailable else [])),
        line=f"{number}. {fix.label}: {fix.summary}"
             + (" (cannot apply here)" if fix.unavailable else ""))


def check_number(diagnosis: Diagnosis) -> int | None:
    """The number of the card's kernel checkup (a fix of kind "check"), if it offers one."""
    return next((number for number, fix in enumerate(diagnosis.fixes, 1)
                 if fix.kind == "check" and fix.unavailable is None), None)


# -- places --------------------------------------------------------------------------------

PlaceField = Literal["location", "call_site"]  # the fields of a Diagnosis that are places


@dataclass(frozen=True)
class PlaceView:
    """A place the card points at, as every form of the card shows it."""

    heading: str  # "Where:" or "Reached from:"
    of: PlaceField  # the diagnosis's field it shows (where its link goes)
    label: str  # "In [3], line 5" or "model.py, line 12"
    within: str  # ", in scaled" (the function it is in), or "" at a cell's or module's top
    lineno: int
    line: str  # the line itself
    window: tuple[tuple[int, str], ...]  # the numbered lines a card shows around it

    def to_json(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["window"] = [list(row) for row in self.window]
        return data


_PLACES: tuple[tuple[PlaceField, str, int], ...] = (("location", "Where:", 2),
                                                    ("call_site", "Reached from:", 1))


def place_view(heading: str, of: PlaceField, location: Location, context: int) -> PlaceView:
    """``location`` with ``context`` lines either side, shown as the diagnosis's ``of``."""
    within = (f", in {location.function}"
              if location.function and not is_top_level(location.function) else "")
    return PlaceView(heading=heading, of=of, label=location.label, within=within,
                     lineno=location.lineno, line=location.line,
                     window=tuple(window_lines(location, context)))


def places(diagnosis: Diagnosis) -> tuple[PlaceView, ...]:
    """Where it happened (two lines either side) and the call that reached it (one); a
    call on the very line where it happened is not shown twice."""
    shown = tuple(place_view(heading, of, location, context)
                  for of, heading, context in _PLACES
                  if (location := getattr(diagnosis, of)) is not None)
    if len(shown) == 2 and (shown[0].label, shown[0].line) == (shown[1].label, shown[1].line):
        return shown[:1]
    return shown


# -- the card -------------------------------------------------------------------------------

BannerKind = Literal["hidden", "general", "no-fix"]


@dataclass(frozen=True)
class CardView:
    """Everything a card says, in the order it says it."""

    code: str
    title: str
    code_label: str  # "jax_nbhelp JNH201", beside the title
    region_label: str  # the card's accessible name
    cause: str  # one sentence
    place: str | None  # where it happened, after the cause (a link where the card can go)
    places: tuple[PlaceView, ...]  # where, then the call that reached it, in the details
    place_named: bool  # the cause names the place already: a card that cannot link omits it
    banner: str | None  # what stands in place of fixes
    banner_kind: BannerKind | None
    recommended: int | None
    recommended_why: str | None
    recommended_heading: str | None  # "Recommended: Fix 1: Index the refs"
    recommended_line: str | None  # beside the primary button
    order: tuple[int, ...]  # every fix, as shown: the recommended one first
    others: tuple[int, ...]
    others_heading: str | None  # "Other fixes" (after a recommended one) or "Fixes"
    shared_safety: tuple[str, ...]
    shared_line: str | None  # "All of these fixes: ..."
    fixes: tuple[FixView, ...]
    check: int | None  # the kernel checkup's number among the fixes, where the card offers it
    details_summary: str
    magic_hint: str | None  # a static copy has no buttons: the magic applies a fix
    text_fixes_heading: str  # the text form's
    text_details_line: str  # the text form's last line: where the rest of the card is
    general_note: str | None  # the general view says it is one
    hints_line: str | None  # what JAX's message suggests
    markdown: str  # "Copy as Markdown", up to the error
    markdown_versions: str | None  # its last part

    def fix(self, number: int) -> FixView:
        return self.fixes[number - 1]

    def to_json(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["order"] = list(self.order)
        data["others"] = list(self.others)
        data["shared_safety"] = list(self.shared_safety)
        data["fixes"] = [fix.to_json() for fix in self.fixes]
        data["places"] = [place.to_json() for place in self.places]
        return data


def _banner(diagnosis: Diagnosis) -> tuple[str | None, BannerKind | None]:
    if diagnosis.hidden_fixes:
        return hidden_line(diagnosis.hidden_fixes), "hidden"
    if diagnosis.general:  # it knows no cause, so it cannot say that no fix is correct
        return GENERAL_LINE, "general"
    if not any(fix.kind != "check" for fix in diagnosis.fixes):
        if diagnosis.binding is not None and diagnosis.binding.mismatch is not None:
            return MISMATCH_LINE, "no-fix"
        return (EXPLAINED_LINE if diagnosis.explained else NO_FIX_LINE), "no-fix"
    return None, None


def card_view(diagnosis: Diagnosis, versions: dict[str, Any] | None = None) -> CardView:
    """The view of ``diagnosis`` as shown (``display.presented``); ``versions``: what the
    kernel runs, for the Markdown."""
    found = recommend(diagnosis)
    number = found[0] if found else None
    shared = tuple(shared_sentences([fix.safety for fix in diagnosis.fixes]))
    fixes = tuple(fix_view(n, fix, shared, n == number)
                  for n, fix in enumerate(diagnosis.fixes, 1))
    order = tuple(range(1, len(fixes) + 1))
    if number is not None:
        order = (number, *(n for n in order if n != number))
    others = order[1:] if number is not None else order
    banner, kind = _banner(diagnosis)
    cause = first_sentence(diagnosis.explanation)
    shown = places(diagnosis)
    place = shown[0].label if diagnosis.location is not None else None
    recommended_fix = diagnosis.fixes[number - 1] if number is not None else None
    return CardView(
        code=diagnosis.code, title=diagnosis.title,
        code_label=f"jax_nbhelp {diagnosis.code}",
        region_label=f"jax_nbhelp: {diagnosis.title}",
        cause=cause,
        place=place, places=shown, place_named=place is not None and place in cause,
        banner=banner, banner_kind=kind,
        recommended=number, recommended_why=found[1] if found else None,
        recommended_heading=(f"Recommended: Fix {number}: {recommended_fix.label}"
                             if recommended_fix is not None else None),
        recommended_line=(short_line(recommended_fix.safe, found[1], recommended_fix.estimate,
                                     recommended_fix.rounding)
                          if recommended_fix is not None and found else None),
        order=order, others=others,
        others_heading=(None if not others else
                        "Other fixes" if number is not None else "Fixes"),
        shared_safety=shared,
        shared_line=f"All of these fixes: {' '.join(shared)}" if shared else None,
        fixes=fixes, check=check_number(diagnosis),
        details_summary=("Details: where it came from, and what the line worked on"
                         if diagnosis.general else
                         "Details: JAX's check, and your call bound to the function"
                         if diagnosis.explained and not diagnosis.fixes else
                         "Details: why, and what each fix runs"),
        magic_hint=("In a running kernel, apply fix N with `%jax_nbhelp fix N`."
                    if diagnosis.fixes else None),
        text_fixes_heading=("Fixes (run one: %jax_nbhelp fix N; see it first: preview N; "
                            "why: details):"),
        text_details_line=TEXT_DETAILS_LINE,
        general_note=GENERAL_NOTE if diagnosis.general else None,
        hints_line=("JAX suggests: " + " ".join(diagnosis.hints)) if diagnosis.hints else None,
        markdown=_markdown(diagnosis, shown),
        markdown_versions=_versions_line(versions),
    )


# -- Markdown ---------------------------------------------------------------------------

def window_lines(location: Location, context: int = 2) -> list[tuple[int, str]]:
    """(line number, text) of the offending line and ``context`` lines either side."""
    lines = location.source.split("\n") if location.source else []
    if 0 < location.lineno <= len(lines):
        first = max(1, location.lineno - context)
        last = min(len(lines), location.lineno + context)
        return [(n, lines[n - 1]) for n in range(first, last + 1)]
    return [(location.lineno, location.line)]


def fence(text: str, language: str = "") -> str:
    """A fenced block longer than any backtick run inside, so it cannot be closed early."""
    longest = max([2, *(len(run) for run in re.findall(r"`+", text))])
    ticks = "`" * (longest + 1)
    return f"{ticks}{language}\n{text}\n{ticks}"


def _where_markdown(place: PlaceView) -> str:
    width = len(str(place.window[-1][0]))
    lines = [f"{str(n).rjust(width)} {'→' if n == place.lineno else ' '} {text}"
             for n, text in place.window]
    return (f"**{place.heading}** {place.label}{place.within}\n\n"
            f"{fence(chr(10).join(lines))}")


def _markdown(diagnosis: Diagnosis, shown: Sequence[PlaceView]) -> str:
    parts = [f"### {diagnosis.title} (jax_nbhelp {diagnosis.code})", diagnosis.explanation]
    parts += [_where_markdown(place) for place in shown]
    parts.append(f"**Error:**\n\n{fence(diagnosis.error)}")
    return "\n\n".join(parts)


def _versions_line(versions: dict[str, Any] | None) -> str | None:
    if not versions:
        return None
    known = [f"{key} {versions[key]}" for key in ("python", "jax", "jaxlib", "backend")
             if versions.get(key)]
    return f"**Versions:** {', '.join(known)}" if known else None


# -- a fix's outcome ------------------------------------------------------------------------

OutcomeKind = Literal["fixed", "repeated", "changed", "checked", "stopped", "failed",
                      "not-applied"]


@dataclass(frozen=True)
class CopyView:
    """A rewritten cell a card that cannot edit the notebook gives the user to copy."""

    label: str
    sentence: str
    source: str


@dataclass(frozen=True)
class OutcomeView:
    """Everything a card says when a fix has run."""

    kind: OutcomeKind
    ok: bool
    headline: str  # "✓ Fixed."
    text: str  # after it
    error: str | None  # the new error, in its own box
    value: str | None  # "Out: 3.0": the failing cell's value, as IPython prints it
    restored: str | None  # "Undone: f, scaled as before the fix."
    keep: str | None  # how to keep a mode in the notebook
    keep_line: str | None  # the set-up line itself, for the button that writes it
    written: str | None  # with "{cells}": where the host wrote the fixed cells
    unchanged: str | None  # said instead when it wrote none
    copies: tuple[CopyView, ...]  # for a host that cannot write the cells
    next: str | None  # about the new error's card, or that there is none
    fold: bool  # the card folds to its header and this outcome
    markdown: str | None  # "**Fix applied:** ... (fixed)"
    plain: str  # the text form
    # after a fix that ran, on a kernel's card: the number of its kernel checkup, offered
    # beside the outcome ("Check this kernel")
    check: int | None = None
    check_line: str | None = None  # the text form's line for it

    def to_json(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["copies"] = [dict(copy.__dict__) for copy in self.copies]
        return data


def _took(label: str, seconds: float) -> str:
    return f"“{label}” ran without error in {seconds:.2f} s"


CHANGED = "Ran without error: changes what the program computes."


def _changed_text(label: str, result: FixResult) -> str:
    """``“label” ran in 0.12 s: `noise` has shape (8, 8); the call asked for (8,).``"""
    return (f"“{label}” ran in {result.seconds:.2f} s"
            + (f": {result.changes}." if result.changes else "."))


CHECKED = "✓ Checked."
FOUND = "⚠ The kernel checkup found a bug."
NOT_CHECKED = "✗ Not checked."


def _found(result: FixResult) -> bool:
    """A checkup's result that found a bug: its card follows, and no error of the cell."""
    return (not result.ok and not result.stopped and result.diagnosis is not None
            and result.error is None)


def _plain(result: FixResult) -> str:
    label = repr(result.fix_label)
    if result.checked is not None:
        said = ("Checked: " if result.ok else "Stopped: " if result.stopped
                else "The kernel checkup found a bug: " if _found(result) else "Not checked: ")
        return said + (result.error if result.stopped and result.error else result.checked)
    if result.ok and not result.safe:
        return f"{CHANGED} {_changed_text(result.fix_label, result)}"
    if result.ok and result.repeated:
        return (f"Ran, but not as if once: {label} ran without error in "
                f"{result.seconds:.2f} s, and ran again what had run before the error: "
                f"{'; '.join(result.repeated)}.")
    if result.ok and result.setup_line:
        return (f"Fixed: {label} ran without error in {result.seconds:.2f} s. "
                f"To keep it in the notebook: {keep_sentence(result.setup_line)}")
    if result.ok:
        return f"Fixed: {label} ran without error in {result.seconds:.2f} s."
    if result.stopped:
        return f"Stopped: {label} did not finish.\n  {result.error}"
    lines = [f"Not fixed: {label} failed.", f"  {result.error}"]
    if result.restored:
        lines.append(f"  Undone: {', '.join(result.restored)} "
                     f"{'is' if len(result.restored) == 1 else 'are'} as before the fix.")
    if result.diagnosis is not None:
        lines.append(f"  jax_nbhelp knows this error: {result.diagnosis.title} "
                     f"[{result.diagnosis.code}]; see `%jax_nbhelp`.")
    return "\n".join(lines)


def _copies(edits: Sequence[CellEdit]) -> tuple[CopyView, ...]:
    return tuple(CopyView(edit.label, f"Fixed source of {edit.label}: copy it into the cell "
                          "(the kernel ran it; this card cannot edit your notebook).",
                          edit.source) for edit in edits)


def outcome_view(fix: Fix | None, result: FixResult, copy: Sequence[CellEdit] | None = None,
                 value: str | None = None, check: int | None = None) -> OutcomeView:
    """What a card says after ``fix`` ran with ``result``; ``copy``: the rewritten cells
    whose source differs from the user's (default: every cell the fix rewrote); ``value``:
    the failing cell's value as IPython prints it; ``check``: the number of the card's
    kernel checkup, offered after a fix that ran."""
    view = _outcome_view(fix, result, copy, value)
    if check is None or not view.ok or view.kind == "checked":
        return view
    return replace(view, check=check,
                   check_line=f"Check the kernel for races and uninitialized reads: "
                              f"%jax_nbhelp fix {check}")


def _checked_view(label: str, result: FixResult) -> OutcomeView:
    """A kernel checkup's answer: clean, or the finding whose card follows."""
    text = (result.error or "") if result.stopped else (result.checked or "")
    found = _found(result)
    return OutcomeView(
        kind="checked", ok=result.ok,
        headline=(CHECKED if result.ok else "■ Stopped." if result.stopped
                  else FOUND if found else NOT_CHECKED),
        text=text, error=result.error if not result.ok and not found and not result.stopped
        else None, value=None, restored=None, keep=None, keep_line=None,
        written=None, unchanged=None, copies=(),
        next=("Its card follows, with the way out." if result.diagnosis is not None else None),
        fold=False, markdown=f"**{label}:** {text}", plain=_plain(result))


def _outcome_view(fix: Fix | None, result: FixResult, copy: Sequence[CellEdit] | None,
                  value: str | None) -> OutcomeView:
    label = fix.label if fix is not None else result.fix_label
    if result.checked is not None:
        return _checked_view(label, result)
    edits = tuple(fix.edits) if fix is not None else ()
    plain = _plain(result)
    if result.ok and not result.safe:
        return OutcomeView(
            kind="changed", ok=True, headline=f"⚠ {CHANGED}",
            text=_changed_text(label, result), error=None,
            value=f"Out: {value}" if value is not None else None, restored=None, keep=None,
            keep_line=None, written=WRITTEN,
            unchanged=("Your notebook is unchanged: this fix ran in the kernel only."
                       if not edits else "Your cells already held the fixed source."),
            copies=_copies(edits if copy is None else copy), next=None, fold=False,
            markdown=f"**Fix applied:** {label} (ran; changes what the program computes)",
            plain=plain)
    if result.ok:
        repeated = bool(result.repeated)
        text = _took(label, result.seconds) + (
            f", and ran again what had run before the error: {'; '.join(result.repeated)}."
            if repeated else ".")
        setup = fix.setup_line if fix is not None else result.setup_line
        unchanged = ("Your notebook is unchanged: this fix ran in the kernel only, so a fresh "
                     "run of the notebook fails again until the code changes." if not edits
                     else "Your cells already held the fixed source.")
        return OutcomeView(
            kind="repeated" if repeated else "fixed", ok=True,
            headline="⚠ Ran, but not as if once." if repeated else "✓ Fixed.", text=text,
            error=None, value=f"Out: {value}" if value is not None else None, restored=None,
            keep=(f"It stays on for this kernel. To keep it in the notebook, "
                  f"{keep_sentence(setup)}" if setup else None),
            keep_line=setup or None, written=WRITTEN, unchanged=unchanged,
            copies=_copies(edits if copy is None else copy), next=None, fold=not repeated,
            markdown=f"**Fix applied:** {label} (fixed)", plain=plain)
    if result.stopped:
        return OutcomeView(
            kind="stopped", ok=False, headline="■ Stopped.",
            text=result.error or f"“{label}” was stopped.", error=None, value=None,
            restored=None,
            keep=None, keep_line=None, written=None, unchanged=None, copies=(), next=None,
            fold=False, markdown=f"**Fix applied:** {label} (not fixed: stopped)",
            plain=plain)
    if result.diagnosis is not None:
        # a chain: the new error's fixes are built on the code this fix ran
        start = f" Its fixes start from your code as “{label}” rewrote it." if edits else ""
        after: str | None = f"jax_nbhelp knows the new error; its diagnosis follows.{start}"
    elif result.traceback:
        after = "jax_nbhelp has no diagnosis for the new error."
    else:
        after = None
    error = result.error or "unknown error"
    return OutcomeView(
        kind="failed", ok=False, headline="✗ Not fixed.", text=f"“{label}” failed:",
        error=error, value=None,
        restored=(f"Undone: {', '.join(result.restored)} as before the fix."
                  if result.restored else None),
        keep=None, keep_line=None, written=None, unchanged=None, copies=(), next=after,
        fold=False, markdown=f"**Fix applied:** {label} (not fixed: {error})", plain=plain)


def not_applied_view(text: str = UNKNOWN_CARD) -> OutcomeView:
    """A click the kernel could not act on: a card it no longer knows, a fix it lacks."""
    return OutcomeView(
        kind="not-applied", ok=False, headline="✗ Not applied.", text=text, error=None,
        value=None, restored=None, keep=None, keep_line=None, written=None, unchanged=None,
        copies=(), next=None, fold=False, markdown=None, plain=f"Not applied: {text}")
