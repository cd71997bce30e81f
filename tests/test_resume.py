"""A fix runs exactly what the error interrupted and what it rewrote, never a statement twice.

In a real IPython shell: the failing cell resumes from the statement that raised, a rewrite
re-defines only what it changed (and what captured it), the preview names every piece that
runs, tracebacks keep the user's line numbers, and a fix that fails is undone.
"""

from __future__ import annotations

import IPython
import pytest
from conftest import SCALED_HELPER, Notebook

import jax_nbhelp
from jax_nbhelp.fix.rerun import executed_source
from jax_nbhelp.show import view

CALL = "out = jax.jit(scaled)(jnp.full((8, 128), float(step)))"


def _fix(label: str) -> jax_nbhelp.Fix:
    diagnosis = jax_nbhelp.last()
    assert diagnosis is not None
    return next(f for f in diagnosis.fixes if f.label == label)


def _runs(label: str) -> str:
    """What the fix's preview says it runs."""
    return view.runs_sentence(_fix(label))


def _apply(label: str) -> jax_nbhelp.FixResult:
    fix = _fix(label)
    result = fix.apply()
    assert result.ok, f"{result.error}\n{result.traceback}"
    # What ran is what the preview shows, run by run.
    assert result.executed == tuple(executed_source(run) for run in fix.runs)
    preview = view.preview(fix)
    for run in fix.runs:
        assert run.source.rstrip("\n") in preview
        assert run.description in preview
    return result


@pytest.mark.parametrize("label", ["Run as one program", "Remove collective_axes"])
def test_state_changed_before_the_failing_statement_stays_changed_once(
    loaded: Notebook, label: str
) -> None:
    loaded.ok("step = 0")
    loaded.ok(SCALED_HELPER)
    failed = loaded.run("step += 1\n" + CALL)
    assert isinstance(failed.error, ValueError)
    fix = _fix(label)
    assert fix.runs[-1].where == "In [5] from line 2"
    assert fix.runs[-1].source == CALL
    _apply(label)
    assert loaded["step"] == 1
    assert float(loaded["out"][0, 0]) == 3.0


def test_a_prng_split_before_the_call_is_not_split_again(loaded: Notebook) -> None:
    loaded.ok("key = jax.random.key(0)")
    loaded.ok(SCALED_HELPER)
    loaded.run("key, sub = jax.random.split(key)\n"
               "x = jax.random.normal(sub, (8, 128))\n"
               "out = jax.jit(scaled)(x)")
    assert _fix("Remove collective_axes").runs[-1].where == "In [5] from line 3"
    _apply("Remove collective_axes")
    import jax

    once, _ = jax.random.split(jax.random.key(0))
    assert bool((jax.random.key_data(loaded["key"]) == jax.random.key_data(once)).all())
    assert bool(jax.numpy.allclose(loaded["out"], loaded["x"] * 2 + 1))


def test_work_before_the_def_in_the_defining_cell_is_not_repeated(loaded: Notebook) -> None:
    loaded.ok("LOADS = 0\ndef load():\n    global LOADS\n    LOADS += 1\n    return 1.0")
    loaded.ok("step = 0")
    loaded.ok("DATA = load()\nhistory = []\nhistory.append(DATA)\n\n" + SCALED_HELPER
              + "\nf = jax.jit(scaled)\nhistory.append(2)")
    loaded.run("step += 1\nout = f(jnp.full((8, 128), DATA))")
    remove = _fix("Remove collective_axes")
    assert view.runs_sentence(remove) == (
        "Runs: In [5], lines 5-10 (rewritten: def scaled; uses scaled); then In [6] from "
        "line 2.")
    assert [(run.first_line, run.last_line) for run in remove.runs] == [(5, 10), (2, 2)]
    data = remove.to_json()["runs"]
    assert [(r["cell"], r["first_line"], r["last_line"], r["why"]) for r in data] == [
        (5, 5, 10, "rewritten: def scaled; uses scaled"), (6, 2, 2, "")]
    _apply("Remove collective_axes")
    assert loaded["LOADS"] == 1
    assert loaded["history"] == [1.0, 2]
    assert loaded["step"] == 1
    assert float(loaded["out"][0, 0]) == 3.0
    # "Apply to cell" gets the whole cell, rewritten.
    (edit,) = remove.edits
    assert edit.cell == 5
    assert edit.source.startswith("DATA = load()")
    assert "collective_axes" not in edit.source


def test_a_failing_call_inside_a_for_loop_resumes_in_its_iteration(loaded: Notebook) -> None:
    loaded.ok(SCALED_HELPER)
    loaded.run("calls = 0\nresults = []\nfor i in range(3):\n    calls += 1\n"
               "    results.append(jax.jit(scaled)(jnp.full((8, 128), float(i))))")
    fix = _fix("Run as one program")
    assert fix.runs[-1].description.startswith(
        "In [4] from line 3 (the for loop resumes at line 5 in the iteration where i = 0")
    _apply("Run as one program")
    # The first iteration raised after calls += 1: it resumed there, so each counted once
    # (tests/test_loop_resume.py has the other loops).
    assert loaded["calls"] == 3
    assert [float(r[0, 0]) for r in loaded["results"]] == [1.0, 3.0, 5.0]


@pytest.mark.skipif(IPython.version_info < (8,),
                    reason="IPython 7's %%time prints the error instead of raising it")
def test_a_time_cell_resumes_inside_its_body(loaded: Notebook) -> None:
    loaded.ok("step = 0")
    loaded.ok(SCALED_HELPER)
    failed = loaded.run("%%time\nstep += 1\n" + CALL + "\nfinal = out.sum()")
    assert isinstance(failed.error, ValueError)
    fix = _fix("Run as one program")
    (run,) = fix.runs
    assert run.where == "In [5] from line 3"
    assert run.source == "%%time\n" + CALL + "\nfinal = out.sum()"
    result = _apply("Run as one program")
    assert result.executed == ("%%time\n\n" + CALL + "\nfinal = out.sum()",)
    assert loaded["step"] == 1
    assert float(loaded["final"]) == 3.0 * 8 * 128


@pytest.mark.skipif(IPython.version_info < (8,),
                    reason="IPython 7's %time prints the error instead of raising it")
def test_a_cell_with_magic_lines_resumes_at_the_magic(loaded: Notebook) -> None:
    loaded.ok("step = 0")
    loaded.ok(SCALED_HELPER)
    failed = loaded.run("%env JAX_NBHELP_TEST=1\nstep += 1\n!true\n%time " + CALL)
    assert isinstance(failed.error, ValueError)
    remove = _fix("Remove collective_axes")
    assert remove.runs[-1].where == "In [5] from line 4"
    assert remove.runs[-1].source == "%time " + CALL
    _apply("Remove collective_axes")
    assert loaded["step"] == 1
    assert float(loaded["out"][0, 0]) == 3.0


def test_a_resumed_run_keeps_the_users_line_numbers(loaded: Notebook) -> None:
    loaded.ok("step = 0")
    loaded.ok(SCALED_HELPER)
    loaded.run("step += 1\nout = scaled(jnp.full((8, 128), float(step)))")
    assert jax_nbhelp.last().code == "JNH102"
    result = _fix("Call it under jax.jit").apply()
    assert not result.ok
    # The re-run raised at line 2 of In [5], not line 1 of a fragment, and is diagnosed.
    assert "In[5], line 2" in (result.traceback or "").replace("In [5]", "In[5]")
    diagnosis = result.diagnosis
    assert diagnosis is not None
    assert diagnosis.code == "JNH101"
    assert diagnosis.call_site is not None
    assert diagnosis.call_site.lineno == 2
    assert diagnosis.call_site.cell == 5
    remove = _fix("Remove collective_axes")
    assert remove.runs[-1].where == "In [5] from line 2"
    assert "jax.jit(scaled)" in remove.runs[-1].source
    _apply("Remove collective_axes")
    assert loaded["step"] == 1
    assert float(loaded["out"][0, 0]) == 3.0


def test_a_name_captured_earlier_in_the_failing_cell_is_captured_again(
    loaded: Notebook,
) -> None:
    loaded.ok(SCALED_HELPER)
    loaded.run("count = 0\ncount += 1\nf = jax.jit(scaled)\nout = f(jnp.ones((8, 128)))")
    remove = _fix("Remove collective_axes")
    assert view.runs_sentence(remove) == (
        "Runs: In [3], lines 1-5 (rewritten: def scaled); then In [4] from line 3 (uses "
        "scaled).")
    _apply("Remove collective_axes")
    assert loaded["count"] == 1
    assert float(loaded["out"][0, 0]) == 3.0


def test_a_cell_tried_again_runs_once_not_once_per_try(loaded: Notebook) -> None:
    """Run, fail, Run again: the statement that raised never completed in the earlier tries,
    and the last try stands for them. What completed in them (a rebinding of the helper) is
    captured again, as in any cell."""
    loaded.ok("step = 0")
    loaded.ok(SCALED_HELPER)
    cell = "step += 1\nf = jax.jit(scaled)\n" + CALL.replace("jax.jit(scaled)", "f")
    for _ in range(3):
        assert isinstance(loaded.run(cell).error, ValueError)
    assert _runs("Remove collective_axes") == (
        "Runs: In [4], lines 1-5 (rewritten: def scaled); then In [5], line 2 (uses scaled); "
        "then In [6], line 2 (uses scaled); then In [7] from line 2 (uses scaled).")
    _apply("Remove collective_axes")
    assert loaded["step"] == 3  # each try ran it, and the fix ran none again
    assert float(loaded["out"][0, 0]) == 7.0


def test_an_earlier_failed_call_of_another_cell_still_runs_again(loaded: Notebook) -> None:
    """A different cell that failed the same way was not tried again: the fix runs it, so
    its names exist as if the corrected helper had run there."""
    loaded.ok(SCALED_HELPER)
    loaded.run("first = jax.jit(scaled)(jnp.ones((8, 128)))")
    loaded.run(CALL.replace("float(step)", "2.0"))
    assert _runs("Remove collective_axes") == (
        "Runs: In [3], lines 1-5 (rewritten: def scaled); then In [4], line 1 (uses scaled); "
        "then In [5] from line 1.")
    _apply("Remove collective_axes")
    assert float(loaded["first"][0, 0]) == 3.0
    assert float(loaded["out"][0, 0]) == 5.0


def test_a_cell_a_fix_completed_counts_as_run(loaded: Notebook) -> None:
    """After a fix, the failing cell has completed: typed again and failing otherwise, the
    earlier run's statement is captured again, not skipped as an unfinished try."""
    loaded.ok(SCALED_HELPER)
    cell = "out = jax.jit(scaled)(jnp.ones((8, 128)))"
    loaded.run(cell)
    _apply("Run as one program")
    loaded.run(cell)
    assert _runs("Remove collective_axes") == (
        "Runs: In [3], lines 1-5 (rewritten: def scaled); then In [4], line 1 (uses scaled); "
        "then In [5] from line 1.")


def test_a_new_session_is_read_afresh(loaded: Notebook) -> None:
    """IPython empties its history in place for a new session; what jax_nbhelp read of the
    old one (its sources, the cells that raised) is not taken for the new one's."""
    loaded.ok(SCALED_HELPER)
    loaded.run("out = jax.jit(scaled)(jnp.ones((8, 128)))")
    loaded.shell.reset(new_session=True)
    loaded.ok("import jax, jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n"
              "from jax.experimental.pallas import tpu as pltpu")
    loaded.ok(SCALED_HELPER)
    loaded.ok("f = jax.jit(scaled)")
    loaded.run("out = f(jnp.ones((8, 128)))")
    assert _runs("Remove collective_axes") == (
        "Runs: In [2], lines 1-5 (rewritten: def scaled); then In [3], line 1 (uses scaled); "
        "then In [4] from line 1.")
    _apply("Remove collective_axes")
    assert float(loaded["out"][0, 0]) == 3.0


def test_statements_that_would_repeat_an_effect_are_named_not_rerun(loaded: Notebook) -> None:
    loaded.ok("step = 0")
    loaded.ok(SCALED_HELPER + "\nstep += 1\nfns = [scaled]\nfns.append(scaled)")
    loaded.run("out = jax.jit(fns[0])(jnp.ones((8, 128)))")
    remove = _fix("Remove collective_axes")
    # `fns = [scaled]` only rebinds a name: it runs again. `step += 1` does not read scaled;
    # `fns.append(scaled)` does, but running it again would append twice: it is named.
    assert view.runs_sentence(remove) == (
        "Runs: In [4], lines 1-5 (rewritten: def scaled); then In [4], line 7 (uses scaled); "
        "then In [5] from line 1.")
    assert ("Not re-run (running them again would repeat what they did): In [4], line 8 "
            "(fns.append(scaled)) uses fns, scaled.") in view.preview(remove)
    loaded.ok("for g in [scaled]:\n    pass")
    loaded.run("out = jax.jit(scaled)(jnp.ones((8, 128)))")
    preview = view.preview(_fix("Remove collective_axes"))
    assert "In [6], line 1 (for loop) uses scaled" in preview
    _apply("Remove collective_axes")
    assert loaded["step"] == 1


def test_out_and_underscore_get_the_value_history_keeps_what_was_typed(
    loaded: Notebook,
) -> None:
    loaded.ok(SCALED_HELPER)
    typed = "x = jnp.ones((8, 128))\njax.jit(scaled)(x).sum()"
    loaded.run(typed)
    result = _apply("Run as one program")
    assert float(result.value) == 3.0 * 8 * 128
    assert float(loaded["Out"][4]) == 3.0 * 8 * 128
    assert float(loaded["_4"]) == 3.0 * 8 * 128
    assert float(loaded["_"]) == 3.0 * 8 * 128
    assert loaded["In"][4] == typed
    assert loaded["_i4"] == typed


def test_a_later_error_in_fixed_code_is_located_in_its_cell(loaded: Notebook) -> None:
    loaded.ok(SCALED_HELPER)
    loaded.run("out = jax.jit(scaled)(jnp.ones((8, 128)))")
    _apply("Remove collective_axes")
    failed = loaded.run("scaled(1)")
    assert isinstance(failed.error, AttributeError)
    assert "Cell In[3], line 5" in failed.stdout
    assert "return pl.run_scoped(body, pltpu.VMEM(x.shape, x.dtype))" in failed.stdout


def test_a_failed_fix_puts_back_the_names_it_rebound(loaded: Notebook) -> None:
    loaded.ok(SCALED_HELPER)
    loaded.ok("f = jax.jit(scaled)\nalias = f")
    loaded.run("out = f(jnp.ones((8, 128)))")
    fix = _fix("Remove collective_axes")
    original_scaled, original_f = loaded["scaled"], loaded["f"]
    # Make the resumed statement fail for another reason: the fix is undone.
    loaded.ok("jnp_saved = jnp\njnp = None")
    result = fix.apply()
    assert not result.ok
    assert result.restored == ("alias", "f", "scaled")
    assert loaded["scaled"] is original_scaled
    assert loaded["f"] is original_f
    assert loaded["alias"] is original_f
    assert "out" not in loaded.shell.user_ns
    assert "Undone: alias, f, scaled are as before the fix." in str(result)
