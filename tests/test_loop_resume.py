"""A fix resumes a top-level for loop in the iteration that raised, at the statement that
raised, in a real IPython shell: no statement of the loop runs twice, and where the loop
cannot be resumed the preview says what runs again."""

from __future__ import annotations

import pytest
from conftest import SCALED_HELPER, Notebook

import jax_nbhelp
from jax_nbhelp.fix.loop_resume import FLAG

FIX = "Run as one program"
CALL = "jax.jit(scaled)(jnp.full((8, 128), float({x})))"


def _fix() -> jax_nbhelp.Fix:
    diagnosis = jax_nbhelp.last()
    assert diagnosis is not None
    return next(f for f in diagnosis.fixes if f.label == FIX)


def _apply() -> jax_nbhelp.FixResult:
    result = _fix().apply()
    assert result.ok, f"{result.error}\n{result.traceback}"
    return result


@pytest.fixture
def helper(loaded: Notebook) -> Notebook:
    loaded.ok(SCALED_HELPER)
    return loaded


def test_the_iteration_that_raised_resumes_at_its_statement(helper: Notebook) -> None:
    helper.run("seen, results = [], []\n"
               "for i in range(3):\n"
               "    seen.append(i)\n"
               f"    results.append({CALL.format(x='i')})\n"
               "else:\n"
               "    seen.append('done')")
    fix = _fix()
    assert fix.runs[-1].description == (
        "In [4] from line 2 (the for loop resumes at line 4 in the iteration where i = 0 "
        "(item 1 of its sequence; line 3 of it already ran), then runs the iterations after "
        "it; none that ran runs again)")
    result = _apply()
    assert str(result).startswith("Fixed:")
    assert result.repeated == ()
    assert helper["seen"] == [0, 1, 2, "done"]
    assert [float(r[0, 0]) for r in helper["results"]] == [1.0, 3.0, 5.0]
    assert FLAG not in helper.shell.user_ns


def test_a_later_iteration_inside_an_if_resumes_there(helper: Notebook) -> None:
    helper.run("seen, out = [], None\n"
               "for i in [10, 20, 30, 40]:\n"
               "    seen.append(i)\n"
               "    if i == 30:\n"
               "        seen.append('kernel')\n"
               f"        out = {CALL.format(x='i')}\n"
               "    else:\n"
               "        seen.append('plain')\n"
               "    if i == 40:\n"
               "        break\n"
               "else:\n"
               "    seen.append('no break')")
    assert "where i = 30 (item 3 of its sequence" in _fix().runs[-1].description
    _apply()
    assert helper["seen"] == [10, "plain", 20, "plain", 30, "kernel", 40, "plain"]
    assert float(helper["out"][0, 0]) == 61.0


def test_the_else_branch_of_an_if_resumes_without_asking_again(helper: Notebook) -> None:
    helper.run("asked, out = [], []\n"
               "def small(i):\n"
               "    asked.append(i)\n"
               "    return i < 1\n"
               "for i in range(3):\n"
               "    if small(i):\n"
               "        out.append(None)\n"
               "    else:\n"
               f"        out.append({CALL.format(x='i')})")
    _apply()
    assert helper["asked"] == [0, 1, 2]  # small(1) is not asked again
    assert helper["out"][0] is None
    assert [float(r[0, 0]) for r in helper["out"][1:]] == [3.0, 5.0]


@pytest.mark.parametrize(("loop", "check"), [
    ("for j, (name, v) in enumerate(zip(names, values)):", "j, name, v"),
    ("for name, v in table.items():", "name, v"),
    ("for v in reversed(values):", "v"),
])
def test_sequences_that_can_be_iterated_again(helper: Notebook, loop: str, check: str) -> None:
    helper.ok("names, values = ['a', 'b', 'c'], [1.0, 2.0, 3.0]\n"
              "table = dict(zip(names, values))\nvisits = []")
    helper.run(f"{loop}\n    visits.append(({check},))\n    r = {CALL.format(x='v')}")
    assert "resumes at line 3" in _fix().runs[-1].description
    _apply()
    assert len(helper["visits"]) == 3  # each iteration once
    assert float(helper["r"][0, 0]) == 2.0 * helper["visits"][-1][-1] + 1.0


@pytest.mark.parametrize(("setup", "loop", "reason"), [
    ("items = iter(range(3))", "for i in items:", "iterator, a generator"),
    ("def gen():\n    yield from range(3)", "for i in gen():", "iterator, a generator"),
    ("items = [1, 1, 2]", "for i in items:", "occurs more than once"),
])
def test_loops_that_cannot_be_resumed_say_what_runs_again(
        helper: Notebook, setup: str, loop: str, reason: str) -> None:
    helper.ok(setup + "\nvisits = []")
    helper.run(f"{loop}\n    visits.append(i)\n    r = {CALL.format(x='i')}")
    description = _fix().runs[-1].description
    assert "runs from its start, so what ran of it runs again" in description
    assert reason in description
    assert _fix().runs[-1].loop is None
    result = _apply()
    # The outcome is not a plain "Fixed": it names what ran twice.
    assert str(result).startswith(f"Ran, but not as if once: {FIX!r} ran without error")
    (repeated,) = result.repeated
    assert repeated.startswith("In [5], the for loop from line 1, from its start")
    assert result.to_json()["repeated"] == list(result.repeated)


def test_a_body_that_rebinds_the_loop_variable_is_not_resumed(helper: Notebook) -> None:
    helper.run(f"for i in range(3):\n    i = i * 2\n    r = {CALL.format(x='i')}")
    assert "rebinds the loop variable" in _fix().runs[-1].description


def test_a_try_body_resumes_and_its_handler_stays_armed(helper: Notebook) -> None:
    helper.run("log = []\n"
               "for i in range(2):\n"
               "    try:\n"
               "        log.append(i)\n"
               f"        r = {CALL.format(x='i')}\n"
               "    except ZeroDivisionError:\n"
               "        log.append('caught')")
    assert "resumes at line 5" in _fix().runs[-1].description
    _apply()
    assert helper["log"] == [0, 1]
