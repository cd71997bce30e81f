"""Every catalog entry, end to end: its failing example is diagnosed as itself (and by nothing
else), its fix runs and the numbers are right, and its fixed example runs clean."""

from __future__ import annotations

import pytest
from conftest import Notebook, validate_bundle

from jax_nbhelp.catalog._example import unmet
from jax_nbhelp.diagnosis.catalog_index import name_of
from jax_nbhelp.diagnosis.context import build_context
from jax_nbhelp.diagnosis.engine import entries, matching
from jax_nbhelp.fix.rerun import executed_source
from jax_nbhelp.show import view
from jax_nbhelp.show.render_text import CARD_LINES, render_diagnosis

CASES = [
    pytest.param(entry, index, example, id=f"{entry.CODE}-{index}")
    for entry in entries()
    for index, example in enumerate(entry.EXAMPLES)
]


def _skip_if_missing(example) -> None:
    requirement = unmet(example)
    if requirement is not None:
        pytest.skip(f"needs {requirement}")


def test_codes_and_names_are_unique() -> None:
    codes = [entry.CODE for entry in entries()]
    names = [name_of(entry) for entry in entries()]
    assert len(set(codes)) == len(codes)
    assert len(set(names)) == len(names)
    assert all(entry.EXAMPLES for entry in entries())


@pytest.mark.parametrize(("entry", "index", "example"), CASES)
def test_failing_example_is_diagnosed_and_fixed(loaded: Notebook, entry, index, example) -> None:
    _skip_if_missing(example)
    for cell in example.setup:
        loaded.ok(cell)
    failed = loaded.run(example.failing)
    assert failed.error is not None, "the failing example did not fail"
    codes = [d.code for d in matching(build_context(failed.error, loaded.shell))]
    assert codes == [entry.CODE]
    assert [d["code"] for d in failed.diagnoses] == [entry.CODE]
    # What the kernel published is what the shared contract says (docs/).
    for bundle in failed.diagnoses:
        validate_bundle(bundle)

    import jax_nbhelp

    diagnosis = jax_nbhelp.last()
    assert diagnosis is not None
    # The text card is read in a glance; the rest is behind `%jax_nbhelp details`.
    card = render_diagnosis(diagnosis)
    assert len(card.splitlines()) <= CARD_LINES, card
    # A note adds to the why; it never says a sentence of it again.
    why = set(view.sentences(diagnosis.why))
    for note in diagnosis.notes:
        assert not why & set(view.sentences(note)), note
    if example.fix == "":  # the diagnosis explains and offers no mechanical fix
        assert diagnosis.fixes == ()
        return
    fix = next(f for f in diagnosis.fixes if f.label == example.fix)
    preview = view.preview(fix)
    result = fix.apply()
    assert result.ok, f"{result.error}\n{result.traceback}"
    # "Fixed" only for a fix that keeps the program's results (issue 43)
    assert result.safe is fix.safe
    assert str(result).startswith("Fixed") is (fix.safe and not result.repeated), str(result)
    assert eval(example.check, loaded.shell.user_ns)
    # What ran is, byte for byte, what the preview showed: each run's source, placed at its
    # lines (a %%time cell's body is moved down by blank lines, nothing else).
    assert result.executed == tuple(executed_source(run) for run in fix.runs)
    for run, executed in zip(fix.runs, result.executed, strict=True):
        assert f"── {run.description} ──\n{run.source.rstrip(chr(10))}" in preview
        assert executed.replace(run.header + "\n" * (len(executed) - len(run.source)),
                                run.header, 1) == run.source


@pytest.mark.parametrize(("entry", "index", "example"), CASES)
def test_fixed_example_runs_clean(nb: Notebook, entry, index, example) -> None:
    _skip_if_missing(example)
    if not example.fixed:
        pytest.skip("runtime fix: the code itself stays as written")
    for cell in example.fixed:
        nb.ok(cell)
    assert eval(example.check, nb.shell.user_ns)
