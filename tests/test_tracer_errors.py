"""JNH301-JNH306, the core tracer errors, in the layouts notebooks have: where the jitted
function is defined, how jit is spelled, and what the call site passes."""

from __future__ import annotations

import pytest
from conftest import Notebook

import jax_nbhelp
from jax_nbhelp.core.model import Diagnosis, Fix
from jax_nbhelp.diagnosis.context import build_context
from jax_nbhelp.show import view

FLAG = '''\
@jax.jit
def step(x, add_one):
    if add_one:
        return x + 1
    return x - 1'''


def _diagnosis(code: str) -> Diagnosis:
    diagnosis = jax_nbhelp.last()
    assert diagnosis is not None
    assert diagnosis.code == code
    return diagnosis


def _fix(diagnosis: Diagnosis, label: str) -> Fix:
    return next(f for f in diagnosis.fixes if f.label == label)


def _apply(fix: Fix) -> None:
    result = fix.apply()
    assert result.ok, f"{result.error}\n{result.traceback}"


def test_python_bool_flag_gets_static_argnames(loaded: Notebook) -> None:
    loaded.ok(FLAG)
    failed = loaded.run("out = step(jnp.ones(3), True)")
    assert type(failed.error).__name__ == "TracerBoolConversionError"
    diagnosis = _diagnosis("JNH301")
    assert "add_one=True" in diagnosis.explanation
    assert diagnosis.location is not None
    assert diagnosis.location.label == "In [3], line 3"
    assert diagnosis.call_site is not None
    assert diagnosis.call_site.label == "In [4], line 1"
    fix = _fix(diagnosis, "Make add_one static")
    assert fix.safe
    # Defined in an earlier cell: that cell is re-run with the change, then the failing one.
    assert [run.label for run in fix.runs] == ["In [3]", "In [4]"]
    # @jax.jit(static_argnames=...) where JAX has it, functools.partial(jax.jit, ...) before.
    assert 'static_argnames=("add_one",))\n def step(x, add_one):' in view.preview(fix)
    _apply(fix)
    assert loaded["out"].tolist() == [2.0, 2.0, 2.0]
    # The user's cell is not changed: history keeps what they typed.
    assert loaded.shell.user_ns["In"][3] == FLAG


def test_array_flag_gets_explanation_not_static_argnames(loaded: Notebook) -> None:
    loaded.ok(FLAG)
    loaded.run("out = step(jnp.ones(3), jnp.array(True))")
    diagnosis = _diagnosis("JNH301")
    assert "`if add_one:`" in diagnosis.explanation
    assert "add_one=jnp.array(True)" in diagnosis.explanation
    # not made static (an array cannot be): the if picks one of two values by one traced
    # True or False, which jnp.where picks the same way, verified by running it
    (fix,) = diagnosis.fixes
    assert fix.label == "Use jnp.where"
    assert fix.safe
    assert "`return jnp.where(add_one, x + 1, x - 1)`" in fix.summary
    assert not any(".where(" in note for note in diagnosis.notes)  # the fix says it
    _apply(fix)
    assert loaded["out"].tolist() == [2.0, 2.0, 2.0]


def test_names_in_the_namespace_are_looked_up(loaded: Notebook) -> None:
    loaded.ok(FLAG)
    loaded.ok("use_one = True\nflags = jnp.array(True)")
    loaded.run("out = step(jnp.ones(3), use_one)")
    _apply(_fix(_diagnosis("JNH301"), "Make add_one static"))
    assert loaded["out"].tolist() == [2.0, 2.0, 2.0]
    loaded.ok(FLAG)  # the fix re-defined step with add_one static; start again
    loaded.run("out = step(jnp.ones(3), flags)")
    assert [fix.label for fix in _diagnosis("JNH301").fixes] == ["Use jnp.where"]


def test_partial_decorator_merges_static_argnames(loaded: Notebook) -> None:
    loaded.ok("from functools import partial\n"
              "@partial(jax.jit, static_argnames=('scale',))\n"
              "def step(x, scale, add_one):\n"
              "    return x * scale + 1 if add_one else x * scale")
    loaded.run("out = step(jnp.ones(3), 2, add_one=True)")
    fix = _fix(_diagnosis("JNH301"), "Make add_one static")
    assert "+@partial(jax.jit, static_argnames=('scale', 'add_one'))" in view.preview(fix)
    _apply(fix)
    assert loaded["out"].tolist() == [3.0, 3.0, 3.0]


def test_jit_call_form_in_an_earlier_cell(loaded: Notebook) -> None:
    loaded.ok("def step(x, add_one):\n    return x + 1 if add_one else x - 1")
    loaded.ok("fast_step = jax.jit(step)")
    loaded.run("out = fast_step(jnp.ones(3), False)")
    fix = _fix(_diagnosis("JNH301"), "Make add_one static")
    assert [run.label for run in fix.runs] == ["In [4]", "In [5]"]
    assert '+fast_step = jax.jit(step, static_argnames=("add_one",))' in view.preview(fix)
    _apply(fix)
    assert loaded["out"].tolist() == [0.0, 0.0, 0.0]


def test_inline_jit_call_is_fixed_in_the_failing_cell(loaded: Notebook) -> None:
    loaded.ok("def step(x, add_one):\n    return x + 1 if add_one else x - 1")
    loaded.run("out = jax.jit(step)(jnp.ones(3), True)")
    fix = _fix(_diagnosis("JNH301"), "Make add_one static")
    assert [run.label for run in fix.runs] == ["In [4]"]
    _apply(fix)
    assert loaded["out"].tolist() == [2.0, 2.0, 2.0]


def test_definition_and_call_in_one_cell(loaded: Notebook) -> None:
    loaded.run(FLAG + "\nout = step(jnp.ones(3), 1)")
    fix = _fix(_diagnosis("JNH301"), "Make add_one static")
    assert [run.label for run in fix.runs] == ["In [3]"]
    _apply(fix)
    assert loaded["out"].tolist() == [2.0, 2.0, 2.0]


def test_flag_read_in_a_helper_is_made_static_on_the_jitted_function(loaded: Notebook) -> None:
    loaded.ok("def helper(x, add_one):\n    return x + 1 if add_one else x - 1\n\n"
              "@jax.jit\ndef step(x, add_one):\n    return helper(x, add_one) * 2")
    loaded.run("out = step(jnp.ones(3), True)")
    diagnosis = _diagnosis("JNH301")
    assert diagnosis.location is not None
    assert diagnosis.location.function == "helper"
    _apply(_fix(diagnosis, "Make add_one static"))
    assert loaded["out"].tolist() == [4.0, 4.0, 4.0]


def test_a_setting_a_calling_function_passes_is_read_in_its_frame(loaded: Notebook) -> None:
    """``run`` passes its own ``flag`` on: the calling frame holds True, a Python setting,
    so the static fix is offered for ``step``."""
    loaded.ok(FLAG)
    loaded.ok("def run(x, flag):\n    return step(x, flag)")
    loaded.run("out = run(jnp.ones(3), True)")
    diagnosis = _diagnosis("JNH301")
    assert [fix.label for fix in diagnosis.fixes] == ["Make add_one static"]
    assert diagnosis.call_site is not None
    assert diagnosis.call_site.function == "run"
    _apply(diagnosis.fixes[0])
    assert loaded["out"].tolist() == [2.0, 2.0, 2.0]


def test_value_traced_in_the_calling_function_gets_no_fix(loaded: Notebook) -> None:
    """``run`` is jitted too: its ``flag`` is a tracer where it calls ``step``, so marking
    ``add_one`` static would not help."""
    loaded.ok(FLAG)
    loaded.ok("@jax.jit\ndef run(x, flag):\n    return step(x, flag)")
    loaded.run("out = run(jnp.ones(3), True)")
    diagnosis = _diagnosis("JNH301")
    assert not any(fix.label.startswith("Make") for fix in diagnosis.fixes)
    assert any("static_argnames=('add_one',)" in note for note in diagnosis.notes)


def test_loop_bodies_and_kernels_get_no_static_argnames(loaded: Notebook) -> None:
    loaded.ok("def body(i, acc):\n    if i > 2:\n        return acc + i\n    return acc")
    loaded.run("out = jax.lax.fori_loop(0, 5, body, 0)")
    diagnosis = _diagnosis("JNH301")
    # no static_argnames for a loop's body; its if/else picks one of two values, per step
    assert [fix.label for fix in diagnosis.fixes] == ["Use jnp.where"]
    _apply(diagnosis.fixes[0])
    assert int(loaded["out"]) == 3 + 4
    assert "inside body (traced for " in diagnosis.explanation  # fori_loop, or scan on 0.6
    loaded.ok("def kernel(x_ref, o_ref):\n"
              "    if x_ref[0, 0] > 0:\n"
              "        o_ref[...] = x_ref[...] * 2")
    loaded.run("out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), "
               "jnp.float32), interpret=True)(jnp.ones((8, 128)))")
    diagnosis = _diagnosis("JNH301")
    assert diagnosis.fixes == ()
    assert "Pallas kernel" in diagnosis.explanation
    assert "@pl.when(x_ref[0, 0] > 0)" in diagnosis.notes[0]


def test_arange_size_from_python_int_and_from_array(loaded: Notebook) -> None:
    loaded.ok("@jax.jit\ndef ramp(x, n):\n    return x + jnp.arange(n)")
    failed = loaded.run("out = ramp(jnp.ones(4), 4)")
    assert type(failed.error).__name__ == "ConcretizationTypeError"
    _apply(_fix(_diagnosis("JNH303"), "Make n static"))
    assert loaded["out"].tolist() == [1.0, 2.0, 3.0, 4.0]
    loaded.ok("@jax.jit\ndef ramp(x, n):\n    return x + jnp.arange(n)")
    loaded.run("out = ramp(jnp.ones(4), jnp.int32(4))")
    diagnosis = _diagnosis("JNH303")
    assert diagnosis.fixes == ()
    assert "Non-hashable static arguments" in diagnosis.explanation


def test_static_argnames_really_fails_for_an_array(nb: Notebook) -> None:
    """The claim the JNH303 explanation makes, checked against real JAX."""
    nb.ok("import jax, jax.numpy as jnp\nfrom functools import partial\n"
          "@partial(jax.jit, static_argnames='n')\ndef ramp(x, n):\n"
          "    return x + jnp.arange(n)")
    failed = nb.run("ramp(jnp.ones(4), jnp.int32(4))")
    assert isinstance(failed.error, ValueError)
    assert "Non-hashable static arguments are not supported" in str(failed.error)


def test_range_over_a_traced_count(loaded: Notebook) -> None:
    """The loop becomes fori_loop, carrying the two names its body assigns that were bound
    before it; the step's own temporary stays in the body."""
    loaded.ok("@jax.jit\ndef power(x, n):\n    out, count = x, 0\n    for _ in range(n - 1):\n"
              "        step = out * x\n        out, count = step, count + 1\n"
              "    return out, count")
    loaded.run("out, count = power(jnp.float32(2.0), jnp.int32(3))")
    diagnosis = _diagnosis("JNH302")
    assert "jax.lax.fori_loop(0, n - 1, body, init)" in diagnosis.notes[0]
    fix = _fix(diagnosis, "Write the loop as fori_loop")
    assert fix.safe
    assert fix.rounding
    assert "+    out, count = jax.lax.fori_loop(0, n - 1, loop_body, (out, count))" \
        in view.preview(fix)
    _apply(fix)
    assert float(loaded["out"]) == 8.0
    assert int(loaded["count"]) == 2


def test_a_fori_loop_rewrite_takes_names_the_code_does_not_use(loaded: Notebook) -> None:
    """The body reads a name `carry` of the function's: the carry tuple is named otherwise,
    or the body would read the tuple where it read the number."""
    loaded.ok("@jax.jit\ndef power(x, n):\n    carry = 1.0\n    out, count = x, 0\n"
              "    for _ in range(n - 1):\n        out, count = out * x * carry, count + 1\n"
              "    return out, count")
    loaded.run("out, count = power(jnp.float32(2.0), jnp.int32(3))")
    fix = _fix(_diagnosis("JNH302"), "Write the loop as fori_loop")
    assert "loop_carry" in view.preview(fix)
    _apply(fix)
    assert float(loaded["out"]) == 8.0


@pytest.mark.parametrize("body", [
    # the step's temporary read after the loop: Python leaves the last step's there
    "        step = out * x\n        out = step\n    return out + step",
    # an effect: it would run once, while JAX traces the body
    "        out = out * x\n        print(out)\n    return out",
    # the counter read after the loop
    "        out = out * x\n    return out + i",
])
def test_a_loop_that_is_not_a_fori_loop_gets_no_rewrite(loaded: Notebook, body: str) -> None:
    loaded.ok("@jax.jit\ndef power(x, n):\n    out = x\n    for i in range(n - 1):\n" + body)
    loaded.run("out = power(jnp.float32(2.0), jnp.int32(3))")
    assert _diagnosis("JNH302").fixes == ()


def test_a_while_loop_keeps_a_steps_temporary_in_its_body(loaded: Notebook) -> None:
    loaded.ok("@jax.jit\ndef halve(t):\n    while t > 1:\n        half = t / 2\n"
              "        t = half\n    return t")
    loaded.run("out = halve(jnp.float32(8.0))")
    fix = _fix(_diagnosis("JNH301"), "Use jax.lax.while_loop")
    _apply(fix)
    assert float(loaded["out"]) == 1.0


@pytest.mark.parametrize(("code", "loop"), [
    ("JNH302", "def f(x, n):\n    out = x\n    for _ in range(n - 1):\n        out = out * x\n"
               "    return out"),
    ("JNH301", "def f(x, n):\n    while x > n:\n        x = x / 2\n    return x"),
])
def test_a_loop_differentiated_in_reverse_gets_no_rewrite(loaded: Notebook, code: str,
                                                          loop: str) -> None:
    """fori_loop with a traced bound is a while_loop, which reverse mode cannot
    differentiate: the rewrite would fail where the loop would not."""
    loaded.ok(loop)
    loaded.run("g = jax.jit(jax.grad(f))(jnp.float32(8.0), jnp.int32(3))")
    assert _diagnosis(code).fixes == ()


def test_numpy_conversion_with_dtype_is_not_rewritten(loaded: Notebook) -> None:
    loaded.ok("import numpy as np\n@jax.jit\ndef f(x):\n"
              "    return np.asarray(x, dtype=np.float64) * 2")
    loaded.run("out = f(jnp.ones(3))")
    assert _diagnosis("JNH305").fixes == ()


def test_numpy_fix_keeps_numpy_constants(loaded: Notebook) -> None:
    loaded.ok("import numpy as np\n@jax.jit\ndef f(x):\n    return np.abs(x) * np.sqrt(4.0)")
    loaded.run("out = f(-jnp.ones(3))")
    fix = _fix(_diagnosis("JNH305"), "Use jnp.abs")
    assert fix.safe
    assert "+    return jnp.abs(x) * np.sqrt(4.0)" in view.preview(fix)
    _apply(fix)
    assert loaded["out"].tolist() == [2.0, 2.0, 2.0]


def test_leaked_tracer_points_at_the_line_that_stores_it(loaded: Notebook) -> None:
    loaded.ok("class Log:\n    pass\nlog = Log()\n\n@jax.jit\ndef f(x):\n"
              "    y = x * 2\n    log.last = y\n    return y\n\nf(jnp.ones(2))")
    failed = loaded.run("print(log.last + 1)")
    assert type(failed.error).__name__ == "UnexpectedTracerError"
    diagnosis = _diagnosis("JNH306")
    assert diagnosis.fixes == ()
    assert diagnosis.location is not None
    assert diagnosis.location.label == "In [3], line 8"
    assert "f (In [3], line 5)" in diagnosis.explanation


def test_context_records_places_and_value_types(loaded: Notebook) -> None:
    loaded.ok(FLAG)
    loaded.ok("use_one = True")
    failed = loaded.run("out = step(jnp.ones(3), use_one)")
    assert failed.error is not None
    ctx = build_context(failed.error, loaded.shell)
    assert ctx.type_of("use_one") == "builtins.bool"
    assert ctx.type_of("jnp") is None  # modules are in module_aliases, not here
    (place,) = ctx.places.values()
    assert place.label == "In [3], line 1"


@pytest.mark.parametrize(
    ("cell", "code"),
    [
        ("out = step(jnp.ones(3), True)", "JNH301"),
        ("out = jnp.arange(jax.jit(lambda n: n)(3))", None),
    ],
)
def test_only_tracer_errors_are_claimed(loaded: Notebook, cell: str, code: str | None) -> None:
    loaded.ok(FLAG)
    loaded.run(cell)
    last = jax_nbhelp.last()
    assert (last.code if last is not None else None) == code


@pytest.mark.kernel
def test_flag_fix_in_a_real_kernel() -> None:
    """ipykernel names cells /tmp/ipykernel_*/N.py; JAX's message must still map to In [3]."""
    import nbformat
    from nbclient import NotebookClient

    from jax_nbhelp.show.render_text import MIME_TYPE

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in (
        "%load_ext jax_nbhelp",
        "import jax, jax.numpy as jnp",
        FLAG,
        "out = step(jnp.ones(3), True)",
        "%jax_nbhelp fix 1",
        "print('numbers:', out.tolist())",
    )]
    NotebookClient(notebook, timeout=300, startup_timeout=300, kernel_name="python3",
                   allow_errors=True).execute()
    bundle = next(o.data for o in notebook.cells[3].outputs if o.output_type == "display_data")
    diagnosis = bundle[MIME_TYPE]
    assert diagnosis["code"] == "JNH301"
    assert diagnosis["fixes"][0]["runs"][0]["label"] == "In [3]"
    printed = "".join(o.get("text", "") for o in notebook.cells[5].outputs)
    assert "numbers: [2.0, 2.0, 2.0]" in printed


def test_a_conversion_only_to_print_becomes_jax_debug_print(loaded: Notebook) -> None:
    """``print(f"... {loss.item():.3f}")`` under jit: printed with jax.debug.print, the
    format kept; a Python value printed beside it (``x.shape``) leaves it explained, since
    debug.print would show that value as an array."""
    loaded.ok("@jax.jit\ndef step(x):\n    loss = jnp.sum(x ** 2)\n"
              "    print(f'loss {loss.item():.3f}')\n    return loss")
    loaded.run("y = step(jnp.ones(2))")
    diagnosis = _diagnosis("JNH303")
    assert [fix.label for fix in diagnosis.fixes] == ["Print with jax.debug.print"]
    _apply(diagnosis.fixes[0])
    assert float(loaded["y"]) == 2.0
    loaded.ok("@jax.jit\ndef step2(x):\n    loss = jnp.sum(x ** 2)\n"
              "    print(f'loss {loss.item():.3f} at {x.shape}')\n    return loss")
    loaded.run("y2 = step2(jnp.ones(2))")
    assert _diagnosis("JNH303").fixes == ()


def test_a_traced_value_formatted_by_an_f_string_becomes_jax_debug_print(
        loaded: Notebook) -> None:
    """``print(f"loss {loss:.3f}")`` under jit: Python asks JAX's tracer to format itself
    and it cannot; the same print through jax.debug.print formats the value at each call.
    A class of the user's that happens to share the tracer's name stays the user's."""
    loaded.ok("@jax.jit\ndef step(x):\n    loss = jnp.sum(x ** 2)\n"
              "    print(f'loss {loss:.3f}')\n    return loss")
    failed = loaded.run("y = step(jnp.ones(2))")
    assert type(failed.error) is TypeError
    diagnosis = _diagnosis("JNH303")
    assert [fix.label for fix in diagnosis.fixes] == ["Print with jax.debug.print"]
    assert "jax.debug.print('loss {:.3f}', loss)" in diagnosis.fixes[0].summary
    _apply(diagnosis.fixes[0])
    assert float(loaded["y"]) == 2.0
    loaded.ok("class DynamicJaxprTracer:\n    pass")
    mine = loaded.run("text = f'{DynamicJaxprTracer():.2f}'")
    assert type(mine.error) is TypeError
    assert mine.diagnoses == []


def test_a_flag_in_a_long_module_gets_the_diff_at_the_modules_lines(loaded: Notebook,
                                                                    tmp_path) -> None:
    """A Python if in a module of thousands of lines the notebook imports: the fix is the
    module's diff, at its own line numbers (read from the block around the line, the rest
    of the file packed while libcst rewrites it), and the file is never edited."""
    import sys

    filler = "".join(f"def helper_{n}(x):\n    return x + {n}\n\n\n" for n in range(900))
    source = ("import jax\nimport jax.numpy as jnp\n\n\n" + filler
              + "class Steps:\n" + "".join(f"    def noop_{n}(self):\n        pass\n\n"
                                          for n in range(200))
              + FLAG.replace("\n", "\n    ").replace("@jax.jit", "    @staticmethod\n"
                                                      "    @jax.jit", 1) + "\n")
    module = tmp_path / "long_steps.py"
    module.write_text(source)
    loaded.shell.user_ns["sys"] = sys
    loaded.ok(f"sys.path.insert(0, {str(tmp_path)!r})\nimport long_steps")
    try:
        failed = loaded.run("out = long_steps.Steps.step(jnp.ones(3), True)")
        assert type(failed.error).__name__ == "TracerBoolConversionError"
        diagnosis = _diagnosis("JNH301")
        fix = _fix(diagnosis, "Make add_one static")
        assert fix.unavailable is not None
        assert "never edits files" in fix.unavailable
        header = source.splitlines().index("    @jax.jit") + 1
        assert f"@@ -{header - 3},7 +{header - 3},7 @@" in fix.diff, fix.diff
        assert "+    @jax.jit(static_argnames=" in fix.diff, fix.diff
        assert '"""' not in fix.diff
        assert module.read_text() == source
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("long_steps", None)
