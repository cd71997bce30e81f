"""The kernel checkup, ``%%jax_nbhelp check``, on real Pallas TPU kernels in JAX's TPU
interpreter on a CPU: each seeded bug is found, of the right kind, at the right line; its
corrected twin is reported clean; the namespace afterwards is one run's."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from conftest import Notebook
from jax.experimental import pallas as pl

from jax_nbhelp.shell.kernel_checkup import available

pytestmark = pytest.mark.skipif("race" not in available()[0],
                                reason="this JAX's TPU interpreter has no race detection")

IMPORTS = ("import jax, jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n"
           "from jax.experimental.pallas import tpu as pltpu\n"
           "x = jnp.arange(32 * 128, dtype=jnp.float32).reshape(32, 128)\n"
           "y = jnp.ones((8, 128))")
ACCUMULATE = '''\
def total_kernel(x_ref, o_ref):
{init}    o_ref[...] += x_ref[...]

def total(x):
    return pl.pallas_call(
        total_kernel, grid=(4,), in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (0, 0)),
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("{semantics}",)))(x)'''
INIT = ("    @pl.when(pl.program_id(0) == 0)\n    def _():\n"
        "        o_ref[...] = jnp.zeros_like(o_ref)\n")
SCRATCH = '''\
def scaled_kernel(x_ref, o_ref, acc):
{init}    acc[...] = acc[...] + x_ref[...]
    o_ref[...] = acc[...] * 2

def scaled(y):
    return pl.pallas_call(scaled_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                          scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)])(y)'''
DMA = '''\
def copied_kernel(x_hbm, o_ref, buf, sem):
    copy = pltpu.make_async_copy(x_hbm, buf, sem)
    copy.start()
{first}
{second}

def copied(y):
    return pl.pallas_call(copied_kernel, in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                          out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                          scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32),
                                          pltpu.SemaphoreType.DMA(())])(y)'''
READ, WAIT = "    o_ref[...] = buf[...] + 1", "    copy.wait()"
CORES = '''\
mesh = pltpu.create_tensorcore_mesh("core", num_cores=2)

def per_core(x):
    @pl.kernel({out_kw}=jax.ShapeDtypeStruct({shape}, jnp.float32), mesh=mesh,
               {scratch_kw}=[pltpu.VMEM((8, 128), jnp.float32)])
    def cores_kernel(x_hbm, o_hbm, buf):
        c = jax.lax.axis_index("core")
        pltpu.sync_copy(x_hbm.at[pl.ds({rows}, 8)], buf)
        buf[...] += 1
        pltpu.sync_copy(buf, o_hbm{out})
    return cores_kernel(x)'''
# pl.kernel's keywords, as this JAX names them (out_shape and scratch_shapes before 0.10)
_KERNEL = inspect.signature(pl.kernel).parameters
KEYWORDS = {"out_kw": "out_type" if "out_type" in _KERNEL else "out_shape",
            "scratch_kw": "scratch_types" if "scratch_types" in _KERNEL else "scratch_shapes"}
SHARED = {**KEYWORDS, "shape": "(8, 128)", "rows": "0", "out": ""}
OWN = {**KEYWORDS, "shape": "(16, 128)", "rows": "c * 8", "out": ".at[pl.ds(c * 8, 8)]"}
RUNNING = '''\
def running_kernel(x_ref, o_ref, acc):
    @pl.when(pl.program_id(0) == 0)
    def _():
        acc[...] = jnp.zeros_like(acc)
    acc[...] = acc[...] + x_ref[...]
    o_ref[...] = acc[...]

def running(x):
    return pl.pallas_call(
        running_kernel, grid=(4,), in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
        out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("{semantics}",)))(x)'''
BLOCKS = '''\
def shifted_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2

def shifted(x):
    return pl.pallas_call(
        shifted_kernel, grid=({steps},), in_specs=[pl.BlockSpec((8, 128), lambda i: (i + 1, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
        out_shape=jax.ShapeDtypeStruct(({rows}, 128), jnp.float32))(x[:{rows} + 8])'''
WINDOW = '''\
def window_kernel(x_ref, o_ref):
    i = pl.program_id(0)
    o_ref[...] = x_ref[pl.ds(i * 8 + {offset}, 8), :]

def window(x):
    return pl.pallas_call(window_kernel, grid=(4,),
                          out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
                          out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32))(x)'''


def _check(loaded: Notebook, definitions: str, cell: str):
    loaded.ok(IMPORTS)
    loaded.ok(definitions)
    out = loaded.run("%%jax_nbhelp check\n" + cell)
    import jax_nbhelp

    return out, jax_nbhelp.last_checkup()


def _line_of(source: str, text: str) -> int:
    return next(n for n, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.mark.parametrize(("definitions", "cell", "kind", "marker"), [
    (ACCUMULATE.format(init="", semantics="arbitrary"), "out = total(x)", "uninitialized",
     "o_ref[...] += x_ref[...]"),
    (SCRATCH.format(init=""), "out = scaled(y)", "uninitialized", "acc[...] = acc[...]"),
    (ACCUMULATE.format(init=INIT, semantics="parallel"), "out = total(x)", "order",
     "return pl.pallas_call("),
    (DMA.format(first=READ, second=WAIT), "out = copied(y)", "race", READ.strip()),
    (CORES.format(**SHARED), "out = per_core(jnp.ones((16, 128)))", "race",
     "pltpu.sync_copy(buf, o_hbm)"),
    (RUNNING.format(semantics="parallel"), "out = running(x)", "order",
     "return pl.pallas_call("),
], ids=["output-accumulator", "scratch", "parallel-carry", "dma-read-before-wait",
        "two-cores-one-buffer", "parallel-scratch"])
def test_a_seeded_bug_is_found_at_its_line(loaded: Notebook, definitions: str, cell: str,
                                           kind: str, marker: str) -> None:
    out, checkup = _check(loaded, definitions, cell)
    assert out.error is None, out.stdout + out.stderr
    assert [finding.kind for finding in checkup.findings] == [kind]
    finding = checkup.findings[0]
    assert finding.location is not None
    assert finding.location.cell == 4  # the cell that defined the kernel (In [4])
    assert finding.location.lineno == _line_of(definitions, marker), finding
    assert [d["code"] for d in out.diagnoses] == [
        {"race": "JNH641", "uninitialized": "JNH642", "order": "JNH644"}[kind]]
    assert "RACE DETECTED" not in out.stdout  # the interpreter's report is the card's


@pytest.mark.parametrize(("definitions", "cell"), [
    (ACCUMULATE.format(init=INIT, semantics="arbitrary"), "out = total(x)"),
    (SCRATCH.format(init="    acc[...] = jnp.zeros_like(acc)\n"), "out = scaled(y)"),
    (DMA.format(first=WAIT, second=READ), "out = copied(y)"),
    (WINDOW.format(offset=0), "out = window(x)"),
    (CORES.format(**OWN), "out = per_core(jnp.ones((16, 128)))"),
    (RUNNING.format(semantics="arbitrary"), "out = running(x)"),
    (BLOCKS.format(steps=3, rows=24), "out = shifted(x)"),
], ids=["output-accumulator", "scratch", "dma", "window", "a-buffer-per-core",
        "arbitrary-scratch", "blocks"])
def test_the_corrected_twin_is_clean(loaded: Notebook, definitions: str, cell: str) -> None:
    out, checkup = _check(loaded, definitions, cell)
    assert out.error is None, out.stdout + out.stderr
    assert checkup.findings == ()
    assert checkup.clean
    assert "nothing found" in out.stdout
    assert out.diagnoses == []


@pytest.mark.parametrize(("definitions", "cell", "marker"), [
    (WINDOW.format(offset=4), "out = window(x)", "o_ref[...] = x_ref[pl.ds("),
    (BLOCKS.format(steps=4, rows=32), "out = shifted(x)", "shifted_kernel, grid="),
], ids=["dynamic-index", "block-past-the-end"])
def test_a_read_past_the_end_raises_and_is_found(loaded: Notebook, definitions: str,
                                                 cell: str, marker: str) -> None:
    out, checkup = _check(loaded, definitions, cell)
    assert type(out.error).__name__ == "JaxRuntimeError"
    assert [finding.kind for finding in checkup.findings] == ["out_of_bounds"]
    assert checkup.findings[0].location is not None
    assert checkup.findings[0].location.lineno == _line_of(definitions, marker)
    assert [d["code"] for d in out.diagnoses] == ["JNH211"]  # the error's own card, its line


def test_the_namespace_is_one_runs(loaded: Notebook) -> None:
    loaded.ok("calls = []\ncount = 0")
    out, checkup = _check(loaded, ACCUMULATE.format(init=INIT, semantics="arbitrary"),
                          "calls.append(1)\ncount += 1\nout = total(x)\nprint('ran')")
    assert out.error is None
    assert loaded["calls"] == [1]
    assert loaded["count"] == 1
    assert out.stdout.count("ran") == 1
    assert float(loaded["out"][0, 0]) == float(loaded["x"][0::8, 0].sum())
    assert checkup.kernels == ("total_kernel",)


def test_a_jitted_wrapper_is_traced_anew_in_every_run(loaded: Notebook) -> None:
    """jit keeps what it traced: without tracing anew, every run would reuse the first run's
    interpreter settings (and the bug would hide behind the zero fill)."""
    definitions = ACCUMULATE.format(init="", semantics="arbitrary") + "\nfast = jax.jit(total)"
    loaded.ok(IMPORTS)
    loaded.ok(definitions)
    loaded.ok("%%jax_nbhelp check\nwarm = fast(x)")  # traced once already, in another run
    out = loaded.run("%%jax_nbhelp check\nout = fast(x)")
    import jax_nbhelp

    assert [f.kind for f in jax_nbhelp.last_checkup().findings] == ["uninitialized"]
    assert out.error is None


def test_a_kernel_built_in_an_earlier_cell_is_not_called_checked(loaded: Notebook) -> None:
    loaded.ok(IMPORTS)
    loaded.ok(ACCUMULATE.format(init=INIT, semantics="arbitrary")
              + "\nbuilt = pl.pallas_call(total_kernel, grid=(4,), in_specs=[pl.BlockSpec("
                "(8, 128), lambda i: (i, 0))], out_specs=pl.BlockSpec((8, 128), lambda i: "
                "(0, 0)), out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32), "
                "interpret=True)")
    out = loaded.run("%%jax_nbhelp check\nout = built(x)")
    import jax_nbhelp

    checkup = jax_nbhelp.last_checkup()
    assert checkup.kernels == ()
    assert not checkup.clean
    assert "nothing checked" in out.stdout
    assert "earlier cell" in out.stdout


@pytest.mark.parametrize("cell", [
    "from jax.experimental.pallas.ops.tpu import matmul as mm\n"
    "out = mm.matmul(jnp.ones((256, 256)), jnp.ones((256, 256)), block_shape=(128, 128))",
    "from jax.experimental.pallas.ops.tpu import flash_attention as fa\n"
    "q = jnp.ones((1, 2, 256, 128)) * 0.1\nout = fa.flash_attention(q, q, q)",
    "from jax.experimental.pallas.ops.tpu import example_kernel as ek\n"
    "out = ek.double(jnp.ones((8, 128)))",
    "from jax.experimental.pallas.ops.tpu.paged_attention import paged_attention\n"
    "q = jnp.ones((1, 1, 128)) * 0.1\npages = jnp.ones((1, 4, 16, 128)) * 0.1\n"
    "out = paged_attention(q, pages, pages, jnp.array([32], jnp.int32),\n"
    "                      jnp.array([[0, 1]], jnp.int32), pages_per_compute_block=2)",
], ids=["matmul", "flash_attention", "example_kernel", "paged_attention"])
def test_jaxs_shipped_tpu_kernels_are_clean(loaded: Notebook, cell: str) -> None:
    loaded.ok(IMPORTS)
    out = loaded.run("%%jax_nbhelp check\n" + cell)
    import jax_nbhelp

    checkup = jax_nbhelp.last_checkup()
    assert out.error is None, out.stdout + out.stderr
    assert checkup.kernels
    assert checkup.findings == ()


def _notebook(path, cells: list[str]) -> None:
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    notebook = new_notebook(cells=[new_code_cell(cell) for cell in cells])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    nbformat.write(notebook, path)


def test_the_doctor_checks_kernels_in_a_folder(tmp_path) -> None:
    import json
    import subprocess
    import sys

    folder = tmp_path / "course"
    folder.mkdir()
    _notebook(folder / "buggy.ipynb", [IMPORTS, ACCUMULATE.format(init="", semantics="arbitrary"),
                                       "out = total(x)\nprint('total', float(out[0, 0]))"])
    _notebook(folder / "clean.ipynb", [IMPORTS, ACCUMULATE.format(init=INIT, semantics="arbitrary"),
                                       "out = total(x)"])
    proc = subprocess.run([sys.executable, "-m", "jax_nbhelp", "doctor", str(folder),
                           "--check-kernels", "--json", "--quiet"],
                          capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    reports = {Path(r["path"]).name: r for r in json.loads(proc.stdout)["notebooks"]}
    (finding,) = reports["buggy.ipynb"]["failures"]
    assert finding["code"] == "JNH642"
    assert finding["error"].startswith("kernel checkup: ")
    assert reports["clean.ipynb"]["failures"] == []
    assert reports["clean.ipynb"]["exit"] == 0 if "exit" in reports["clean.ipynb"] else True


def test_the_pytest_flag_fails_the_buggy_notebook_only(tmp_path) -> None:
    import subprocess
    import sys

    buggy = ACCUMULATE.format(init="", semantics="arbitrary")
    clean = ACCUMULATE.format(init=INIT, semantics="arbitrary")
    _notebook(tmp_path / "buggy.ipynb", [IMPORTS, buggy, "out = total(x)"])
    _notebook(tmp_path / "clean.ipynb", [IMPORTS, clean, "out = total(x)"])
    proc = subprocess.run([sys.executable, "-m", "pytest", "--nbhelp", "--nbhelp-check-kernels",
                           "-p", "no:cacheprovider", "-o", "addopts=", "-q", str(tmp_path)],
                          capture_output=True, text=True, timeout=900, check=False, cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert "1 failed, 1 passed" in proc.stdout
    assert "kernel checkup" in proc.stdout
    assert "JNH642" in proc.stdout


# -- "Check this kernel" on a kernel's card, and after its fix ------------------------------

def _kernel_card(loaded: Notebook, definitions: str, cell: str) -> tuple[dict, int]:
    """The card of a kernel compiled for the CPU, and the number of its checkup."""
    loaded.ok(IMPORTS)
    loaded.ok(definitions)
    failed = loaded.run(cell)
    (bundle,) = failed.diagnoses
    kinds = [fix["kind"] for fix in bundle["fixes"]]
    assert kinds.count("check") == 1, kinds
    assert kinds[-1] == "check", kinds
    return bundle, len(kinds)


def test_a_kernel_card_offers_the_checkup_and_a_fixed_outcome_too(loaded: Notebook) -> None:
    from conftest import validate_bundle

    import jax_nbhelp
    from jax_nbhelp.core.session import current
    from jax_nbhelp.show.bundle import result_json
    from jax_nbhelp.show.view import card_view

    definitions = ACCUMULATE.format(init="", semantics="arbitrary").replace(
        "pltpu.CompilerParams(dimension_semantics=(\"arbitrary\",)))(x)",
        "pltpu.CompilerParams(dimension_semantics=(\"arbitrary\",)), interpret=False)(x)")
    bundle, check = _kernel_card(loaded, definitions, "out = total(x)")
    assert bundle["code"] == "JNH201"
    view = bundle["view"]
    assert view["check"] == check
    assert view["recommended"] != check
    assert check in view["others"]
    assert view["fixes"][check - 1]["badge"] == "Checks only:"
    assert f"{check}. Check this kernel: races, uninitialized" in str(jax_nbhelp.last())
    # the recommended fix runs; its outcome offers the checkup of the code as it stands
    fixed = loaded.run(f"%jax_nbhelp fix {view['recommended']}")
    assert f"%jax_nbhelp fix {check}" in fixed.stdout, fixed.stdout
    diagnosis = current().cards.get(bundle["card_id"])
    answer = result_json(jax_nbhelp.last_result(), session=current(),
                         check=card_view(diagnosis).check)
    validate_bundle(answer, "result")
    assert answer["view"]["check"] == check
    # the checkup finds the accumulator nobody initialised, at its line, as its card
    found = loaded.run(f"%jax_nbhelp fix {check}")
    assert "The kernel checkup found a bug" in found.stdout, found.stdout
    assert [d["code"] for d in found.diagnoses] == ["JNH642"]
    assert found.diagnoses[0]["location"]["lineno"] == _line_of(definitions, "o_ref[...] +=")
    result = jax_nbhelp.last_result()
    assert result.checked
    assert not result.ok
    validate_bundle(result_json(result, session=current()), "result")
    assert jax_nbhelp.last().code == "JNH642"  # `fix N` now means the finding's fixes
    assert [f.kind for f in jax_nbhelp.last_checkup().findings] == ["uninitialized"]


def test_the_checkup_of_a_clean_kernel_says_checked(loaded: Notebook) -> None:
    import jax_nbhelp
    from jax_nbhelp.show.view import outcome_view

    definitions = ACCUMULATE.format(init=INIT, semantics="arbitrary").replace(
        "(dimension_semantics=(\"arbitrary\",)))(x)",
        "(dimension_semantics=(\"arbitrary\",)), interpret=False)(x)")
    _bundle, check = _kernel_card(loaded, definitions, "out = total(x)")
    checked = loaded.run(f"%jax_nbhelp fix {check}")
    assert checked.error is None
    assert "Checked: race, uninitialized" in checked.stdout, checked.stdout
    assert "nothing found" in checked.stdout
    assert checked.diagnoses == []
    result = jax_nbhelp.last_result()
    assert result.ok
    view = outcome_view(None, result)
    assert (view.kind, view.headline) == ("checked", "✓ Checked.")
    assert "Fixed" not in view.plain
    # the namespace holds one run's results, as if the cell had run once interpreted
    assert float(loaded["out"][0, 0]) == float(loaded["x"][0::8, 0].sum())


def test_the_doctor_never_applies_the_checkup() -> None:
    from jax_nbhelp.doctor.checkup import _recommended

    bundle = {"fixes": [{"available": True, "safe": True, "kind": "check",
                         "label": "Check this kernel"}]}
    assert _recommended(bundle) == (None, [])


# -- the findings' mechanical fixes, verified by checking again ----------------------------

@pytest.mark.parametrize(("definitions", "cell", "code", "added", "expected"), [
    (ACCUMULATE.format(init="", semantics="arbitrary"), "out = total(x)", "JNH642",
     "@pl.when(pl.program_id(0) == 0)", "x.reshape(4, 8, 128).sum(0)"),
    (SCRATCH.format(init=""), "out = scaled(y)", "JNH642",
     "acc[...] = jnp.zeros(acc.shape, acc.dtype)", "y * 2"),
    (ACCUMULATE.format(init=INIT, semantics="parallel"), "out = total(x)", "JNH644",
     'dimension_semantics=("arbitrary",)', "x.reshape(4, 8, 128).sum(0)"),
    (RUNNING.format(semantics="parallel"), "out = running(x)", "JNH644",
     'dimension_semantics=("arbitrary",)', "x.reshape(4, 8, 128).cumsum(0).reshape(32, 128)"),
], ids=["output-accumulator", "scratch", "parallel-carry", "parallel-scratch"])
def test_a_finding_with_a_mechanical_fix_is_fixed_by_a_clean_recheck(
        loaded: Notebook, definitions: str, cell: str, code: str, added: str,
        expected: str) -> None:
    import numpy as np

    import jax_nbhelp

    out, _checkup = _check(loaded, definitions, cell)
    assert [d["code"] for d in out.diagnoses] == [code]
    (fix,) = out.diagnoses[0]["fixes"]
    assert fix["safe"]
    (edit,) = fix["edits"]
    assert edit["cell"] == 4  # the cell that defines the kernel, not the checked one
    assert added in edit["source"]
    assert added not in edit["original"]
    fixed = loaded.run("%jax_nbhelp fix 1")
    assert "nothing found" in fixed.stdout, fixed.stdout
    assert "Fixed:" in fixed.stdout
    assert jax_nbhelp.last_result().ok
    assert jax_nbhelp.last_checkup().findings == ()
    want = eval(expected, {}, {"x": np.asarray(loaded["x"]), "y": np.asarray(loaded["y"])})
    np.testing.assert_allclose(np.asarray(loaded["out"]), want)


def test_a_finding_in_the_checked_cell_keeps_the_magic_line_in_its_fix(loaded: Notebook) -> None:
    loaded.ok(IMPORTS)
    out = loaded.run("%%jax_nbhelp check\n" + ACCUMULATE.format(init=INIT, semantics="parallel")
                     + "\nout = total(x)")
    (fix,) = out.diagnoses[0]["fixes"]
    (edit,) = fix["edits"]
    assert edit["source"].startswith("%%jax_nbhelp check\n")
    assert 'dimension_semantics=("arbitrary",)' in edit["source"]
    fixed = loaded.run("%jax_nbhelp fix 1")
    assert "nothing found" in fixed.stdout, fixed.stdout


# -- a long checkup: how long, how far, and stop -------------------------------------------

def test_a_long_checkup_says_how_far_it_is(loaded: Notebook, monkeypatch) -> None:
    from jax_nbhelp.shell import kernel_checkup

    monkeypatch.setattr(kernel_checkup, "_LONG_RUN", 0.0)  # every run counts as long
    out, checkup = _check(loaded, ACCUMULATE.format(init=INIT, semantics="arbitrary"),
                          "out = total(x)")
    assert checkup.clean
    said = [line for line in out.stdout.splitlines() if "jax_nbhelp checkup: run" in line]
    assert [line.split(":")[1].strip() for line in said] == [
        "run 2 of 5", "run 3 of 5", "run 4 of 5", "run 5 of 5"], out.stdout
    assert all(" left; interrupt the kernel to stop" in line for line in said)


def test_an_interrupted_checkup_leaves_the_namespace_as_it_was(loaded: Notebook) -> None:
    import jax_nbhelp

    loaded.ok("class Runs:\n    count = 0\nkept = 1")
    out, checkup = _check(loaded, ACCUMULATE.format(init=INIT, semantics="arbitrary"),
                          "Runs.count += 1\nkept = 2\nout = total(x)\n"
                          "if Runs.count == 2:\n    raise KeyboardInterrupt")
    assert out.error is None
    assert "stopped before it finished: the namespace is as it was before the cell" in out.stdout
    assert checkup.stopped
    assert not checkup.clean
    assert "out" not in loaded.shell.user_ns
    assert loaded["kept"] == 1
    assert jax_nbhelp.last_checkup() is checkup


# -- GPU kernels: the checks are the TPU interpreter's, so none ran ------------------------

def test_a_gpu_kernel_is_never_called_clean(loaded: Notebook) -> None:
    triton = pytest.importorskip("jax.experimental.pallas.triton")
    assert hasattr(triton, "CompilerParams")
    loaded.ok(IMPORTS + "\nfrom jax.experimental.pallas import triton as pltriton\n"
              "def add_kernel(x_ref, o_ref):\n    o_ref[...] = x_ref[...] + 1\n"
              "class Runs:\n    count = 0")
    out = loaded.run("%%jax_nbhelp check\nRuns.count += 1\n"
                     "out = pl.pallas_call(add_kernel, out_shape=y, "
                     "compiler_params=pltriton.CompilerParams(num_warps=4), "
                     "interpret=True)(y)")
    import jax_nbhelp

    checkup = jax_nbhelp.last_checkup()
    assert out.error is None, out.stdout + out.stderr
    assert checkup.kernels == ("add_kernel",)
    assert checkup.checks == ()
    assert set(checkup.not_run) == {"race", "uninitialized", "out_of_bounds", "order"}
    assert not checkup.clean
    assert "add_kernel is a GPU kernel" in out.stdout
    assert "nothing found" not in out.stdout
    assert loaded["Runs"].count == 2  # the refused try, then the one run as written
    assert float(loaded["out"][0, 0]) == 2.0


GPU_KERNELS = '''\
from jax.experimental.pallas import mosaic_gpu as plgpu
v = jnp.ones((128,), jnp.float32)

def shared_kernel(x_ref, o_ref):
    t = jax.lax.axis_index("t")
    o_ref[...] = x_ref[...] + t.astype(jnp.float32)

def halves_kernel(x_ref, o_ref):
    t = jax.lax.axis_index("t")
    o_ref[pl.ds(t * 64, 64)] = x_ref[pl.ds(t * 64, 64)] + 1

def summed_kernel(x_ref, o_ref):
    o_ref[...] += x_ref[...]

def on_threads(kernel, **mesh):
    return plgpu.kernel(kernel, out_type=jax.ShapeDtypeStruct((128,), jnp.float32), **mesh)'''
THREADS = "num_threads=2, thread_name='t'"


def _gpu_checks() -> bool:
    from jax_nbhelp.shell.kernel_checkup import _gpu_interpreter

    try:
        import jax.experimental.pallas.mosaic_gpu as plgpu
    except Exception:
        return False
    return (_gpu_interpreter() is not None
            and "out_type" in inspect.signature(plgpu.kernel).parameters)


@pytest.mark.parametrize(("cell", "kind", "marker"), [
    (f"out = on_threads(shared_kernel, {THREADS})(v)", "race", "o_ref[...] = x_ref[...] + t"),
    ("out = on_threads(summed_kernel)(v)", "uninitialized", "o_ref[...] += x_ref[...]"),
    (f"out = on_threads(halves_kernel, {THREADS})(v)", None, None),
], ids=["two-threads-one-buffer", "accumulator", "a-half-per-thread"])
def test_a_mosaic_gpu_kernel_is_checked_in_the_gpu_interpreter(
        loaded: Notebook, cell: str, kind: str | None, marker: str | None) -> None:
    if not _gpu_checks():
        pytest.skip("this JAX's GPU interpreter cannot be forced on a cell's kernels")
    out, checkup = _check(loaded, GPU_KERNELS, cell)
    assert out.error is None, out.stdout + out.stderr
    assert checkup.checks == ("race", "uninitialized", "out_of_bounds")
    assert checkup.not_run == ("order",)  # one block: no order to vary, so never "clean"
    assert not checkup.clean
    if kind is None:
        assert checkup.findings == ()
        assert "nothing found; not run (the interpreter that ran it has no such check): order" \
            in out.stdout
        assert float(loaded["out"][0]) == 2.0
        return
    assert [finding.kind for finding in checkup.findings] == [kind]
    assert checkup.findings[0].location.lineno == _line_of(GPU_KERNELS, marker)
    if kind == "race":  # where it showed: the two threads
        assert "(cores or threads 0 and 1)" in checkup.findings[0].message


def test_a_cell_that_inspects_a_kernel_builder_sees_it_as_it_is(loaded: Notebook) -> None:
    """The checkup watches pl.pallas_call and its siblings while the cell runs; a cell that
    asks what they take (does plgpu.kernel take interpret=?) gets the real answer."""
    import inspect as inspect_module

    loaded.ok(IMPORTS)
    loaded.ok("%%jax_nbhelp check\nimport inspect\n"
              "seen = str(inspect.signature(pl.pallas_call)), pl.pallas_call.__name__")
    assert loaded["seen"] == (str(inspect_module.signature(pl.pallas_call)), "pallas_call")


def test_a_long_checkup_from_a_card_says_so_before_it_starts() -> None:
    from jax_nbhelp.core.model import Estimate, Fix
    from jax_nbhelp.show.view import fix_view

    check = Fix(label="Check this kernel", summary="races", safety="It changes no code.",
                safe=True, kind="check",
                estimate=Estimate(steps=5 * 4096, mode="tpu", seconds=5 * 40.0))
    view = fix_view(3, check, (), False)
    assert view.long is not None
    assert "20,480 grid steps interpreted, roughly 3 min" in view.long
    assert view.expected == " of roughly 3 min"
    assert view.badge == "Checks only:"
