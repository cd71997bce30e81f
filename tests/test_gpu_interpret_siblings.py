"""Edge cases of the GPU-interpret collective-axes diagnoses (JNH108 to JNH110) and of the
rewrite that sets ``collective_axes`` to a kernel's thread axis."""

from __future__ import annotations

import importlib.util

import pytest
from conftest import Notebook

from jax_nbhelp.catalog import _gpu_thread_axis as axes
from jax_nbhelp.catalog.run_scoped import (
    run_scoped_collective_along_gpu_cluster_axis as cluster_entry,
)
from jax_nbhelp.catalog.run_scoped import (
    run_scoped_collective_axis_not_in_gpu_kernel as not_found_entry,
)
from jax_nbhelp.catalog.run_scoped import run_scoped_missing_gpu_thread_axis as missing_entry
from jax_nbhelp.diagnosis.context import ErrorContext, Link, build_context
from jax_nbhelp.diagnosis.engine import ask, matching
from jax_nbhelp.rewrite import CannotRewrite
from jax_nbhelp.rewrite.set_collective_axes import set_collective_axes

CELL = '''\
def add_one(x_ref, o_ref):
    pl.run_scoped(body, plgpu.SMEM((8, 128), jnp.float32), collective_axes="core")
    pl.run_scoped(body, plgpu.SMEM((8, 128), jnp.float32))
    pl.run_scoped(body, plgpu.SMEM((8, 128), jnp.float32),)
    pl.run_scoped(body, plgpu.SMEM((8, 128), jnp.float32), collective_axes=None)
    pl.run_scoped(body, plgpu.SMEM((8, 128), jnp.float32), collective_axes=AXES)
    pl.run_scoped(body, a); pl.run_scoped(body, b)
    pl.run_scoped(body, *allocations)
    x = other(collective_axes="core")
'''


def _line(source: str, lineno: int) -> str:
    return source.splitlines()[lineno - 1]


@pytest.mark.parametrize(
    ("lineno", "expected"),
    [
        (2, 'jnp.float32), collective_axes="wg")'),
        (3, 'jnp.float32), collective_axes="wg")'),
        (4, 'jnp.float32), collective_axes="wg",)'),
        (5, 'jnp.float32), collective_axes="wg")'),
    ],
)
def test_set_collective_axes_replaces_or_adds(lineno: int, expected: str) -> None:
    new = set_collective_axes(CELL, lineno, "wg")
    assert _line(new, lineno).endswith(expected)
    others = [n for n in range(1, len(CELL.splitlines()) + 1) if n != lineno]
    assert [_line(new, n) for n in others] == [_line(CELL, n) for n in others]


@pytest.mark.parametrize(
    ("lineno", "reason"),
    [
        (6, "literal"),  # a variable may be used elsewhere
        (7, "2 run_scoped"),  # which one failed?
        (8, r"\*args"),
        (9, "no run_scoped"),
    ],
)
def test_set_collective_axes_refuses(lineno: int, reason: str) -> None:
    with pytest.raises(CannotRewrite, match=reason):
        set_collective_axes(CELL, lineno, "wg")


def test_set_collective_axes_refuses_odd_names_and_magic_lines() -> None:
    with pytest.raises(CannotRewrite):
        set_collective_axes(CELL, 2, "w g")
    with pytest.raises(CannotRewrite):
        set_collective_axes("%time pl.run_scoped(body, a)\n", 1, "wg")


def test_set_collective_axes_keeps_magics_elsewhere() -> None:
    cell = "%matplotlib inline\npl.run_scoped(body, a)\n"
    assert set_collective_axes(cell, 2, "wg") == (
        '%matplotlib inline\npl.run_scoped(body, a, collective_axes="wg")\n'
    )


def test_message_parsing() -> None:
    message = "Collective axis `core` not found among axes `['wg']`"
    assert axes.not_found(message) == ("core", "['wg']")
    assert axes.named_axes("['wg']") == ("wg",)
    assert axes.named_axes("['c', 'wg']") == ("c", "wg")
    assert axes.named_axes("[<object object at 0x7f82ec65d0f0>]") is None
    assert axes.named_axes("['c', <object object at 0x7f82ec65d0f0>]") is None
    assert axes.not_found("Collective axis missing") is None


def _context(message: str, cells: dict[int, str] | None = None) -> ErrorContext:
    link = Link(type_name="ValueError", module="builtins", message=message, frames=(),
                mro=("ValueError", "Exception", "BaseException", "object"))
    return ErrorContext((link,), cell_sources=cells or {}, kernel=None)


def test_unrelated_errors_are_not_claimed() -> None:
    ctx = _context("Collective axis spelled differently")
    for entry in (not_found_entry, missing_entry, cluster_entry):
        assert ask(entry, ctx) is None


def test_cluster_axes_in_the_list_get_no_fix() -> None:
    ctx = _context("Collective axis `x` not found among axes `['c', 'wg']`")
    diagnosis = ask(not_found_entry, ctx)
    assert diagnosis is not None
    assert diagnosis.fixes == ()
    assert "['c', 'wg']" in diagnosis.explanation
    assert [d.code for d in matching(ctx)] == ["JNH108"]


def test_one_named_axis_offers_it_even_without_a_cell() -> None:
    diagnosis = ask(not_found_entry, _context("Collective axis `None` not found among "
                                                  "axes `['wg']`"))
    assert diagnosis is not None
    (fix,) = diagnosis.fixes
    assert fix.label == "Use the thread axis 'wg'"
    assert fix.unavailable  # no user line to rewrite


@pytest.mark.parametrize(
    ("cells", "note"),
    [
        ({1: 'k = plgpu.kernel(f, s, num_threads=2, thread_name="wg")',
          2: "k2 = plgpu.kernel(g, s, num_threads=2, thread_name='warp')"}, "several"),
        ({1: "k = plgpu.kernel(f, s, num_threads=2, thread_name=AXIS)"}, "no literal"),
    ],
)
def test_missing_thread_axis_without_one_literal_name_gets_no_fix(
    cells: dict[int, str], note: str
) -> None:
    ctx = _context(missing_entry.MESSAGE, cells)
    diagnosis = ask(missing_entry, ctx)
    assert diagnosis is not None
    assert diagnosis.fixes == ()
    assert note in " ".join(diagnosis.notes)
    assert [d.code for d in matching(ctx)] == ["JNH109"]


def test_thread_names_are_read_once_each() -> None:
    ctx = _context("", {1: 'a(thread_name="wg")', 2: "b(thread_name = 'wg')"})
    assert axes.thread_names_in_cells(ctx) == ("wg",)


@pytest.mark.parametrize(
    "message",
    [
        "Requesting collective allocations, but no explicit thread axis specified.",
        "Collective allocations along cluster axes are not supported.",
    ],
)
def test_cluster_messages_are_explained_without_fix(message: str) -> None:
    ctx = _context(message)
    diagnosis = ask(cluster_entry, ctx)
    assert diagnosis is not None
    assert diagnosis.fixes == ()
    assert [d.code for d in matching(ctx)] == ["JNH110"]


needs_gpu_interpreter = pytest.mark.skipif(
    any(importlib.util.find_spec(module) is None for module in not_found_entry._REQUIRES),
    reason="needs absl and jax 0.10's GPU interpreter",
)


@needs_gpu_interpreter
def test_collective_axes_none_is_set_to_the_thread_axis(loaded: Notebook) -> None:
    setup = not_found_entry._THREADS.replace('collective_axes="core"', "collective_axes=None")
    loaded.ok(setup)
    failed = loaded.run(not_found_entry._CALL)
    assert failed.error is not None
    assert "Collective axis `None` not found among axes `['wg']`" in str(failed.error)
    (diagnosis,) = matching(build_context(failed.error, loaded.shell))
    (fix,) = diagnosis.fixes
    assert 'collective_axes="wg")' in fix.diff
    result = fix.apply()
    assert result.ok, result.error
    assert bool((loaded["out"] == 3).all())


@needs_gpu_interpreter
def test_kernel_built_in_another_cell_is_rebuilt(loaded: Notebook) -> None:
    # The fix re-defines the body; the kernel built from it in a later cell captured the old
    # body, so that statement runs again too (and nothing else of either cell).
    body, _, build = missing_entry._MISSING.partition("add_one_gpu = ")
    loaded.ok(body)
    loaded.ok("add_one_gpu = " + build)
    failed = loaded.run(not_found_entry._CALL)
    assert failed.error is not None
    (diagnosis,) = matching(build_context(failed.error, loaded.shell))
    assert diagnosis.code == "JNH109"
    (fix,) = diagnosis.fixes
    assert [run.label for run in fix.runs] == ["In [3]", "In [4]", "In [5]"]
    assert "uses add_one" in fix.runs[1].why
    result = fix.apply()
    assert result.ok, result.error
    assert bool((loaded["out"] == 3).all())
