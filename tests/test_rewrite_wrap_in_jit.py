"""Wrapping an eager call to a run_scoped helper in jax.jit."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from jax_nbhelp.rewrite import CannotRewrite, wrap_call_in_jit, wrap_call_in_jit_python

NO_EAGER_RULE = "Evaluation rule for 'run_scoped' not implemented"


@pytest.mark.parametrize(
    ("source", "lineno", "callee", "expected"),
    [
        pytest.param("y = scaled(x)\n", 1, "scaled", "y = jax.jit(scaled)(x)\n", id="name"),
        pytest.param(
            "y = mod.scaled(x)  # eager\n", 1, "scaled", "y = jax.jit(mod.scaled)(x)  # eager\n",
            id="attribute-by-plain-name",
        ),
        pytest.param(
            "y = mod.scaled(x)\n", 1, "mod.scaled", "y = jax.jit(mod.scaled)(x)\n",
            id="dotted-name",
        ),
        pytest.param(
            "y = scaled(\n    x,  # input\n    n=3,\n)\n", 3, "scaled",
            "y = jax.jit(scaled)(\n    x,  # input\n    n=3,\n)\n",
            id="multiline-any-line",
        ),
        pytest.param(
            "print(scaled(scaled(x)))\n", 1, "scaled",
            "print(jax.jit(scaled)(jax.jit(scaled)(x)))\n",
            id="every-call-on-the-line",
        ),
        pytest.param(
            "a = scaled(x)\nb = scaled(x)\n", 2, "scaled",
            "a = scaled(x)\nb = jax.jit(scaled)(x)\n",
            id="only-that-line",
        ),
        pytest.param(
            "y = jax.jit(scaled)(x) + scaled(z)\n", 1, "scaled",
            "y = jax.jit(scaled)(x) + jax.jit(scaled)(z)\n",
            id="wrapped-calls-left-alone",
        ),
        pytest.param(
            "def f(x):\n    return   scaled( x )   # odd\n", 2, "scaled",
            "def f(x):\n    return   jax.jit(scaled)( x )   # odd\n",
            id="spacing-kept",
        ),
    ],
)
def test_wrap(source: str, lineno: int, callee: str, expected: str) -> None:
    assert wrap_call_in_jit(source, lineno, callee) == expected
    assert wrap_call_in_jit_python(source, lineno, callee) == expected


@pytest.mark.parametrize(
    ("jit", "expected"),
    [
        ("jit", "y = jit(scaled)(x)\n"),
        ("jx.jit", "y = jx.jit(scaled)(x)\n"),
        (
            "partial(jax.jit, static_argnums=1)",
            "y = partial(jax.jit, static_argnums=1)(scaled)(x)\n",
        ),
    ],
)
def test_custom_jit_text(jit: str, expected: str) -> None:
    assert wrap_call_in_jit("y = scaled(x)\n", 1, "scaled", jit) == expected


def test_bad_jit_text() -> None:
    with pytest.raises(ValueError, match="jit must be a Python expression"):
        wrap_call_in_jit("y = scaled(x)\n", 1, "scaled", "jax.jit(")


@pytest.mark.parametrize(
    ("cell", "lineno", "expected"),
    [
        pytest.param(
            "%%time\n!nvidia-smi\ny = scaled(x)\njnp.sum?\n", 3,
            "%%time\n!nvidia-smi\ny = jax.jit(scaled)(x)\njnp.sum?\n",
            id="magics-elsewhere",
        ),
        pytest.param("%time y = scaled(x)\n", 1, "%time y = jax.jit(scaled)(x)\n", id="time"),
        pytest.param(
            "for i in range(2):\n    %timeit -n 3 -r 1 scaled(x).block_until_ready()\n", 2,
            "for i in range(2):\n    %timeit -n 3 -r 1 jax.jit(scaled)(x).block_until_ready()\n",
            id="timeit-options",
        ),
        pytest.param("t = %timeit -o scaled(x)\n", 1, "t = %timeit -o jax.jit(scaled)(x)\n",
                     id="timeit-assigned"),
    ],
)
def test_cells_with_magics(cell: str, lineno: int, expected: str) -> None:
    assert wrap_call_in_jit(cell, lineno, "scaled") == expected


@pytest.mark.parametrize(
    ("source", "lineno", "message"),
    [
        (
            "y = jax.jit(scaled)(x)\n", 1,
            "Line 1 already calls scaled through a wrapper such as jax.jit, so there is "
            "nothing to change.",
        ),
        ("y = other(x)\n", 1, "Line 1 has no call to scaled(...) to wrap in jax.jit."),
        ("y = other.scaled(x)\n", 1, "Line 1 has no call to mod.scaled(...) to wrap in jax.jit."),
        ("y = f(scaled)\n", 1, "Line 1 has no call to scaled(...) to wrap in jax.jit."),
        (
            "!echo scaled(x)\n", 1,
            "Line 1 is IPython syntax ('!echo scaled(x)'), so the call on it can't be "
            "rewritten automatically.",
        ),
        ("%time y = other(x)\n", 1, "Line 1 has no call to scaled(...) to wrap in jax.jit."),
        (
            "%time scaled(x\n", 1,
            "Line 1 can't be parsed as Python, so the code can't be rewritten automatically: "
            "'%time scaled(x'.",
        ),
        (
            "%%time\ny = 1\n", 1,
            "Line 1 is IPython syntax ('%%time'), so the call on it can't be rewritten "
            "automatically.",
        ),
        ("x = 1\n", 2, "Line 2 is outside the code, which has 1 line."),
    ],
)
def test_refusals(source: str, lineno: int, message: str) -> None:
    callee = "mod.scaled" if "other.scaled" in source else "scaled"
    with pytest.raises(CannotRewrite) as info:
        wrap_call_in_jit(source, lineno, callee)
    assert str(info.value) == message


# --- real JAX ---------------------------------------------------------------

HELPER = """\
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

def scaled(x):
    def body(ref):
        ref[...] = x * 2
        return ref[...] + 1
    return pl.run_scoped(body, pltpu.VMEM(x.shape, x.dtype))
"""


def run(source: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "rewrite_test"}
    exec(compile(source, "<rewrite-test-cell>", "exec"), namespace)
    return namespace


def expect_threes(result: Any) -> None:
    np.testing.assert_array_equal(np.asarray(result), np.full((8, 128), 3.0, np.float32))


def test_real_jax_eager_call_then_jit() -> None:
    source = HELPER + "x = jnp.ones((8, 128))\nresult = scaled(x)  # eager\n"
    with pytest.raises(NotImplementedError, match=NO_EAGER_RULE):
        run(source)
    lineno = source.count("\n")
    fixed = wrap_call_in_jit(source, lineno, "scaled")
    assert fixed.endswith("result = jax.jit(scaled)(x)  # eager\n")
    expect_threes(run(fixed)["result"])


def test_real_ipython_time_magic(nb: Any) -> None:
    """A real shell runs the cell with %time before and after the rewrite."""
    cell = HELPER + "x = jnp.ones((8, 128))\n%time result = scaled(x)\n"
    out = nb.run(cell)
    assert isinstance(out.error, NotImplementedError)
    assert NO_EAGER_RULE in str(out.error)
    fixed = wrap_call_in_jit(cell, cell.count("\n"), "scaled")
    assert fixed.endswith("%time result = jax.jit(scaled)(x)\n")
    nb.ok(fixed)
    expect_threes(nb["result"])
