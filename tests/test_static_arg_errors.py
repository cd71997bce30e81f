"""JNH307 (an unhashable value for a static argument) and JNH308 (a traced slice bound), in
the layouts notebooks have, and the rewrite that stops marking a parameter static."""

from __future__ import annotations

import pytest
from conftest import Notebook

import jax_nbhelp
from jax_nbhelp.core.model import Diagnosis, Fix
from jax_nbhelp.rewrite import CannotRewrite
from jax_nbhelp.rewrite.remove_static_arg import remove_static_arg
from jax_nbhelp.show import view

IMPORTS = "from functools import partial"
RAMP = '''\
@partial(jax.jit, static_argnames='n')
def ramp(x, n):
    return x + jnp.arange(n)'''
HEAD = '''\
@partial(jax.jit, static_argnames=("n",))
def head(x, n):
    return x[:n]'''


def _diagnosis(code: str) -> Diagnosis:
    diagnosis = jax_nbhelp.last()
    assert diagnosis is not None
    assert diagnosis.code == code
    return diagnosis


def _fix(diagnosis: Diagnosis, label: str) -> Fix:
    return next(f for f in diagnosis.fixes if f.label == label)


def _labels(diagnosis: Diagnosis) -> list[str]:
    return [f.label for f in diagnosis.fixes]


# -- JNH307 ---------------------------------------------------------------------------------


def test_size_array_explained_with_both_lines_and_int_fix(loaded: Notebook) -> None:
    loaded.ok(IMPORTS)
    loaded.ok(RAMP)
    loaded.ok("n = jnp.int32(3)")
    loaded.run("out = ramp(jnp.zeros(3), n)")
    diagnosis = _diagnosis("JNH307")
    assert "`out = ramp(jnp.zeros(3), n)` at In [6], line 1" in diagnosis.explanation
    assert "passes n=n, an array (3)" in diagnosis.explanation
    assert "`@partial(jax.jit, static_argnames='n')` at In [4], line 1" in diagnosis.explanation
    # the size needs its value: the Python int works, dropping static would not (below)
    assert _labels(diagnosis) == ["Pass int(n)", "Stop treating n as static"]
    assert view.recommend(diagnosis) == (1, view.LASTS_REWRITE)
    result = _fix(diagnosis, "Pass int(n)").apply()
    assert result.ok, result.traceback
    assert loaded["out"].tolist() == [0.0, 1.0, 2.0]


def test_dropping_static_for_a_size_chains_to_the_tracer_error(loaded: Notebook) -> None:
    loaded.ok(IMPORTS)
    loaded.ok(RAMP)
    loaded.ok("n = jnp.int32(3)")
    loaded.run("out = ramp(jnp.zeros(3), n)")
    fix = _fix(_diagnosis("JNH307"), "Stop treating n as static")
    assert "-@partial(jax.jit, static_argnames='n')\n+@jax.jit" in view.preview(fix)
    assert [run.label for run in fix.runs] == ["In [4]", "In [6]"]
    result = fix.apply()
    assert not result.ok
    assert result.diagnosis is not None
    assert result.diagnosis.code == "JNH303"


def test_dropping_static_for_a_slice_chains_to_jnh308(loaded: Notebook) -> None:
    loaded.ok(IMPORTS)
    loaded.ok(HEAD)
    loaded.run("out = head(jnp.arange(4.0), jnp.int32(2))")
    result = _fix(_diagnosis("JNH307"), "Stop treating n as static").apply()
    assert not result.ok
    assert result.diagnosis is not None
    assert result.diagnosis.code == "JNH308"


def test_inline_jit_on_the_calling_line(loaded: Notebook) -> None:
    loaded.ok("def scale(x, s):\n    return x * s")
    loaded.ok("s = jnp.float32(3.0)")
    loaded.run("out = jax.jit(scale, static_argnums=(1,))(jnp.ones(2), s)")
    diagnosis = _diagnosis("JNH307")
    # A float array: no int() conversion is offered.
    assert _labels(diagnosis) == ["Stop treating s as static"]
    fix = diagnosis.fixes[0]
    assert "+out = jax.jit(scale)(jnp.ones(2), s)" in view.preview(fix)
    result = fix.apply()
    assert result.ok, result.traceback
    assert loaded["out"].tolist() == [3.0, 3.0]


def test_shape_array_becomes_a_tuple(loaded: Notebook) -> None:
    loaded.ok(IMPORTS)
    loaded.ok("@partial(jax.jit, static_argnums=0)\ndef blank(shape):\n    return jnp.zeros(shape)")
    loaded.ok("shape = jnp.array([2, 3])")
    loaded.run("out = blank(shape)")
    diagnosis = _diagnosis("JNH307")
    result = _fix(diagnosis, "Pass tuple(shape.tolist())").apply()
    assert result.ok, result.traceback
    assert loaded["out"].shape == (2, 3)


def test_dict_literal_is_explained_without_conversion(loaded: Notebook) -> None:
    loaded.ok(IMPORTS)
    loaded.ok("@partial(jax.jit, static_argnames='cfg')\ndef f(x, cfg):\n"
              "    return x * cfg['k']")
    loaded.run("out = f(jnp.ones(2), {'k': 2.0})")
    diagnosis = _diagnosis("JNH307")
    assert "passes cfg={'k': 2.0}, a dict" in diagnosis.explanation
    assert _labels(diagnosis) == ["Stop treating cfg as static"]
    result = diagnosis.fixes[0].apply()
    assert result.ok, result.traceback
    assert loaded["out"].tolist() == [2.0, 2.0]


def test_call_from_a_helper_function_offers_no_conversion(loaded: Notebook) -> None:
    loaded.ok(IMPORTS)
    loaded.ok(RAMP)
    loaded.ok("def go(k):\n    return ramp(jnp.zeros(2), k)")
    loaded.run("out = go(jnp.int32(2))")
    diagnosis = _diagnosis("JNH307")
    assert "Pass int(k)" not in _labels(diagnosis)


# -- JNH308 ---------------------------------------------------------------------------------


def test_slice_size_from_python_int_with_jit_in_another_cell(loaded: Notebook) -> None:
    loaded.ok("def head(x, n):\n    return x[:n]")
    loaded.ok("head_j = jax.jit(head)")
    failed = loaded.run("out = head_j(jnp.arange(5.0), n=2)")
    assert type(failed.error).__name__ == "IndexError"
    diagnosis = _diagnosis("JNH308")
    assert diagnosis.location is not None
    assert diagnosis.location.label == "In [3], line 2"
    assert diagnosis.call_site is not None
    assert diagnosis.call_site.label == "In [5], line 1"
    assert "it comes from n" in diagnosis.explanation
    assert "n=2" in diagnosis.explanation
    fix = _fix(diagnosis, "Make n static")
    assert [run.label for run in fix.runs] == ["In [4]", "In [5]"]
    result = fix.apply()
    assert result.ok, result.traceback
    assert loaded["out"].tolist() == [0.0, 1.0]


def test_slice_bound_from_array_is_explained(loaded: Notebook) -> None:
    loaded.ok("@jax.jit\ndef head(x, n):\n    return x[:n]")
    loaded.run("out = head(jnp.arange(5.0), jnp.int32(2))")
    diagnosis = _diagnosis("JNH308")
    assert diagnosis.fixes == ()
    assert "n=jnp.int32(2)" in diagnosis.explanation
    assert "jax.lax.dynamic_slice(x, (start,), (size,))" in " ".join(diagnosis.notes)


def test_fixed_size_window_names_dynamic_slice_with_its_size(loaded: Notebook) -> None:
    loaded.ok("@jax.jit\ndef window(x, i):\n    return x[i:i + 3] * 2")
    loaded.run("out = window(jnp.arange(5.0), 1)")
    diagnosis = _diagnosis("JNH308")
    # A Python int from the caller: static is the fix; the size note is for arrays.
    assert _labels(diagnosis) == ["Make i static"]
    loaded.run("out = window(jnp.arange(5.0), jnp.int32(1))")
    diagnosis = _diagnosis("JNH308")
    assert diagnosis.fixes == ()
    assert "jax.lax.dynamic_slice_in_dim(x, start, 3)" in " ".join(diagnosis.notes)


# -- the rewrite ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "lineno", "index", "expected"),
    [
        ("@partial(jax.jit, static_argnames='n')\ndef f(x, n):\n    return x\n", 1, 1,
         "@jax.jit\ndef f(x, n):\n    return x\n"),
        ("@jax.jit(static_argnames=('n', 'm'))\ndef f(x, n, m):\n    return x\n", 2, 1,
         "@jax.jit(static_argnames=('m',))\ndef f(x, n, m):\n    return x\n"),
        ("g = jax.jit(f, static_argnums=(1,), donate_argnums=0)\n", 1, 1,
         "g = jax.jit(f, donate_argnums=0)\n"),
        ("g = jax.jit(f, static_argnums=[0, 1])\n", 1, 1, "g = jax.jit(f, static_argnums=[0])\n"),
        ("%%time\ng = jax.jit(f, static_argnames='n', static_argnums=1)\n", 2, 1,
         "%%time\ng = jax.jit(f)\n"),
    ],
)
def test_remove_static_arg(source: str, lineno: int, index: int, expected: str) -> None:
    assert remove_static_arg(source, lineno, "f", "n", index) == expected


def test_remove_static_arg_refuses_what_it_cannot_see() -> None:
    with pytest.raises(CannotRewrite):
        remove_static_arg("g = jax.jit(f, static_argnames=NAMES)\n", 1, "f", "n", 1)
    with pytest.raises(CannotRewrite):
        remove_static_arg("@jax.jit\ndef f(x, n):\n    return x\n", 1, "f", "n", 1)


def test_a_function_jitted_by_name_is_found_from_the_frames(loaded: Notebook) -> None:
    """``fast = jax.jit(block)``: JAX's message for a traced ``jnp.tile`` count names no traced
    function (this release: "must have __hash__"), so the frames show which one jit traced,
    and the setting is made static at ``jax.jit(block)``."""
    loaded.ok("import jax, jax.numpy as jnp\n\ndef block(x, k):\n    return jnp.tile(x, k)\n\n"
              "fast = jax.jit(block)")
    failed = loaded.run("b = fast(jnp.ones(2), 3)")
    assert failed.error is not None
    diagnosis = _diagnosis("JNH303")
    fix = _fix(diagnosis, "Make k static")
    assert "static_argnames" in fix.diff
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["b"].shape == (6,)


def test_a_jitted_method_called_on_a_new_object_gets_its_setting_static(
        loaded: Notebook) -> None:
    """``Sampler(2.0).draw(key, 3)``: ``self`` is not an argument of the call, so ``n`` is
    bound to the 3 the call passes."""
    loaded.ok("import jax, jax.numpy as jnp\n" + IMPORTS + "\n\nclass Sampler:\n"
              "    def __init__(self, scale):\n        self.scale = scale\n\n"
              "    @partial(jax.jit, static_argnums=(0,))\n    def draw(self, key, n):\n"
              "        return self.scale * jax.random.normal(key, (n,))\n\n"
              "    def __hash__(self):\n        return id(self)")
    failed = loaded.run("s = Sampler(2.0).draw(jax.random.key(0), 3)")
    assert failed.error is not None
    fix = _fix(_diagnosis("JNH303"), "Make n static")
    assert "static_argnums=(0, 2)" in fix.diff
    assert "Fixed" in loaded.run("%jax_nbhelp fix 1").stdout
    assert loaded["s"].shape == (3,)
