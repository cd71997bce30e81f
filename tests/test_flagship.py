"""JNH101 in the layouts users really have: where the helper lives, how run_scoped is
spelled, magics in the cell, and the fix chain from an eager call."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import IPython
import pytest
from conftest import SCALED_HELPER, Notebook

import jax_nbhelp
from jax_nbhelp.show import view

HELPER = SCALED_HELPER
CALL = "out = jax.jit(scaled)(jnp.ones((8, 128)))"


def _fix(label: str):
    diagnosis = jax_nbhelp.last()
    assert diagnosis is not None
    return next(f for f in diagnosis.fixes if f.label == label)


def _assert_fixed(nb: Notebook, label: str) -> jax_nbhelp.FixResult:
    result = _fix(label).apply()
    assert result.ok, f"{result.error}\n{result.traceback}"
    assert float(nb["out"].sum()) == 3.0 * 8 * 128
    assert jax_nbhelp.last_result() is result
    return result


def test_helper_in_an_earlier_cell(loaded: Notebook) -> None:
    loaded.ok(HELPER)
    failed = loaded.run(CALL)
    assert isinstance(failed.error, ValueError)
    (diagnosis,) = failed.diagnoses
    assert diagnosis["location"]["label"] == "In [3], line 5"
    assert diagnosis["call_site"]["label"] == "In [4], line 1"
    remove = _fix("Remove collective_axes")
    assert [run.label for run in remove.runs] == ["In [3]", "In [4]"]
    assert '-    return pl.run_scoped(body, pltpu.VMEM(x.shape, x.dtype), collective_axes="core")' \
        in view.preview(remove)
    result = _assert_fixed(loaded, "Remove collective_axes")
    assert "collective_axes" not in (result.source or "")
    # The user's cells are never changed: the history keeps what they typed.
    assert "collective_axes" in loaded.shell.user_ns["In"][3]


def test_helper_in_the_same_cell_reruns_it_once(loaded: Notebook) -> None:
    loaded.run(HELPER + "\n" + CALL)
    remove = _fix("Remove collective_axes")
    assert [run.label for run in remove.runs] == ["In [3]"]
    _assert_fixed(loaded, "Remove collective_axes")


def test_run_as_one_program_affects_that_run_only(loaded: Notebook) -> None:
    from jax._src.interpreters import mlir
    from jax._src.pallas.primitives import run_scoped_p

    rule_before = mlir._lowerings[run_scoped_p]
    loaded.ok(HELPER)
    loaded.run(CALL)
    _assert_fixed(loaded, "Run as one program")
    assert mlir._lowerings[run_scoped_p] is rule_before
    # Nothing compiled during the fix survives it: the unchanged code fails again.
    again = loaded.run(CALL)
    assert isinstance(again.error, ValueError)


def test_helper_in_a_module_file_is_never_edited(loaded: Notebook, tmp_path: Path) -> None:
    module = tmp_path / "kernel_helpers.py"
    source = "from jax.experimental import pallas as pl\n" \
             "from jax.experimental.pallas import tpu as pltpu\n\n\n" + HELPER + "\n"
    module.write_text(source)
    loaded.shell.user_ns["sys"] = sys
    loaded.ok(f"sys.path.insert(0, {str(tmp_path)!r})\nfrom kernel_helpers import scaled")
    failed = loaded.run(CALL)
    (diagnosis,) = failed.diagnoses
    assert diagnosis["location"]["kind"] == "file"
    assert diagnosis["location"]["filename"] == str(module)
    assert diagnosis["location"]["lineno"] == 9
    remove = _fix("Remove collective_axes")
    assert remove.unavailable is not None
    assert "never edits files" in remove.unavailable
    assert '-    return pl.run_scoped(' in view.preview(remove)
    refused = remove.apply()
    assert not refused.ok
    assert "never edits files" in (refused.error or "")
    assert module.read_text() == source
    _assert_fixed(loaded, "Run as one program")
    sys.path.remove(str(tmp_path))
    sys.modules.pop("kernel_helpers", None)


@pytest.mark.parametrize(
    "helper",
    [
        pytest.param(
            "import functools\n"
            "def scaled(x):\n"
            "    @functools.partial(pl.run_scoped, ref=pltpu.VMEM(x.shape, x.dtype),\n"
            "                       collective_axes=\"core\")\n"
            "    def result(ref):\n"
            "        ref[...] = x * 2\n"
            "        return ref[...] + 1\n"
            "    return result",
            id="decorator",
        ),
        pytest.param(
            "from jax.experimental.pallas import run_scoped as rs\n"
            "def scaled(x):\n"
            "    def body(ref):\n"
            "        ref[...] = x * 2\n"
            "        return ref[...] + 1\n"
            "    return rs(body, pltpu.VMEM(x.shape, x.dtype), collective_axes=None)",
            id="alias-and-None",
        ),
        pytest.param(
            "AXES = ('core',)\n"
            "def scaled(x):\n"
            "    def body(ref):\n"
            "        ref[...] = x * 2\n"
            "        return ref[...] + 1\n"
            "    return pl.run_scoped(\n"
            "        body,\n"
            "        pltpu.VMEM(x.shape, x.dtype),\n"
            "        collective_axes=AXES,  # shared by every core\n"
            "    )",
            id="variable-multiline",
        ),
        pytest.param(
            "def scaled(x, **opts):\n"
            "    def body(ref):\n"
            "        ref[...] = x * 2\n"
            "        return ref[...] + 1\n"
            "    return pl.run_scoped(body, pltpu.VMEM(x.shape, x.dtype), **opts)\n"
            "scaled_core = lambda x: scaled(x, collective_axes='core')",
            id="kwargs",
        ),
    ],
)
def test_spellings_of_run_scoped(loaded: Notebook, helper: str) -> None:
    loaded.ok(helper)
    call = CALL.replace("jit(scaled)", "jit(scaled_core)") if "scaled_core" in helper else CALL
    failed = loaded.run(call)
    assert [d["code"] for d in failed.diagnoses] == ["JNH101"]
    _assert_fixed(loaded, "Remove collective_axes")


def test_magics_in_the_cells_survive_the_rewrite(loaded: Notebook) -> None:
    loaded.ok("%config InteractiveShell.ast_node_interactivity = 'last_expr'\n" + HELPER
              + "\n%who_ls function")
    # IPython 7's %time prints an error itself instead of raising it; %env works everywhere.
    magic = "%time " if IPython.version_info >= (8,) else "%env JAX_NBHELP_TEST=1\n"
    failed = loaded.run(magic + CALL)
    assert isinstance(failed.error, ValueError)
    remove = _fix("Remove collective_axes")
    # Only the rewritten def runs again, not the magics around it; the failing cell
    # resumes at the magic's line.
    edited = remove.runs[0]
    assert edited.where == "In [3], lines 2-6"
    assert edited.source.startswith("def scaled(x):")
    assert remove.runs[-1].source == (magic + CALL).splitlines()[-1]
    # The whole cell, magics kept, is what the notebook gets.
    (cell,) = remove.edits
    assert cell.source.startswith("%config InteractiveShell")
    assert cell.source.endswith("%who_ls function")
    _assert_fixed(loaded, "Remove collective_axes")


def test_eager_call_then_jit_then_flagship_chain(loaded: Notebook) -> None:
    loaded.ok(HELPER)
    failed = loaded.run("out = scaled(jnp.ones((8, 128)))")
    assert isinstance(failed.error, NotImplementedError)
    assert [d["code"] for d in failed.diagnoses] == ["JNH102"]
    jitted = _fix("Call it under jax.jit").apply()
    assert not jitted.ok
    assert jitted.diagnosis is not None
    assert jitted.diagnosis.code == "JNH101"
    assert jax_nbhelp.last() is jitted.diagnosis
    assert jitted.diagnosis.call_site is not None
    assert "jax.jit(scaled)" in jitted.diagnosis.call_site.line
    _assert_fixed(loaded, "Remove collective_axes")


def test_magic_commands_print_list_preview_and_fix(loaded: Notebook) -> None:
    listed = loaded.ok("%jax_nbhelp list")
    assert "JNH101" in listed.stdout
    assert "JNH102" in listed.stdout
    assert "no diagnosis yet" in loaded.ok("%jax_nbhelp").stdout
    loaded.ok(HELPER)
    loaded.run(CALL)
    assert "JNH101" in loaded.ok("%jax_nbhelp").stdout
    assert "+++ In [5] (fixed)" in loaded.ok("%jax_nbhelp preview 2").stdout
    assert "there is no fix 7" in loaded.ok("%jax_nbhelp fix 7").stdout
    applied = loaded.ok("%jax_nbhelp fix 2")
    assert "Fixed: 'Remove collective_axes'" in applied.stdout
    assert "Fixed:" in loaded.ok("%jax_nbhelp last").stdout


def test_diagnose_works_outside_ipython(tmp_path: Path) -> None:
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent('''\
        import jax, jax.numpy as jnp
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import tpu as pltpu
        import jax_nbhelp

        def scaled(x):
            def body(ref):
                ref[...] = x * 2
                return ref[...] + 1
            return pl.run_scoped(body, pltpu.VMEM(x.shape, x.dtype), collective_axes="core")

        try:
            jax.jit(scaled)(jnp.ones((8, 128)))
        except ValueError as exc:
            d = jax_nbhelp.diagnose(exc)
            print(d.code, d.location.label, d.call_site.lineno)
            print(d.fixes[0].apply().error)
    '''))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    first, second = proc.stdout.splitlines()[:2]
    assert first == f"JNH101 {script}, line 10 13"
    assert "did not come from a notebook cell" in second


def test_leading_blank_lines_in_a_cell_do_not_shift_the_location(loaded: Notebook) -> None:
    loaded.ok("\n\n" + HELPER)
    failed = loaded.run("\n" + CALL)
    (diagnosis,) = failed.diagnoses
    assert diagnosis["location"]["label"] == "In [3], line 7"
    assert "pl.run_scoped" in diagnosis["location"]["line"]
    assert diagnosis["call_site"]["label"] == "In [4], line 2"
    _assert_fixed(loaded, "Remove collective_axes")


def test_a_diagnosis_holds_no_frames_tracebacks_or_exceptions(loaded: Notebook) -> None:
    import gc
    import types

    loaded.ok(HELPER)
    loaded.run(CALL)
    seen: set[int] = set()
    stack: list[object] = [jax_nbhelp.last()]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, type | types.ModuleType | types.FunctionType):
            continue
        seen.add(id(obj))
        assert not isinstance(obj, types.FrameType | types.TracebackType | BaseException), obj
        stack.extend(gc.get_referents(obj))


@pytest.mark.parametrize(
    "call",
    [
        "out = jax.jit(jax.checkpoint(scaled))(jnp.ones((8, 128)))",
        "out = jax.jit(lambda x: jax.lax.scan(lambda c, _: (scaled(c) - 2, None), x, None,"
        " length=2)[0] + 2)(jnp.ones((8, 128)))",
        "out = jax.lax.fori_loop(0, 1, lambda i, c: scaled(c), jnp.ones((8, 128)))",
    ],
    ids=["checkpoint", "scan", "fori_loop"],
)
def test_flagship_under_transformations(loaded: Notebook, call: str) -> None:
    loaded.ok(HELPER)
    failed = loaded.run(call)
    (diagnosis,) = failed.diagnoses
    # scan and fori_loop add an unrelated KeyError as context; the location is still the line.
    assert diagnosis["location"]["label"] == "In [3], line 5"
    assert diagnosis["call_site"]["label"] == "In [4], line 1"
    _assert_fixed(loaded, "Run as one program")
