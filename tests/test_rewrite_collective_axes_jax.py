"""Removing collective_axes with real JAX: the rewrite turns the error into the right numbers."""

from __future__ import annotations

import textwrap
import traceback
from typing import Any

import numpy as np
import pytest

from jax_nbhelp.rewrite import remove_collective_axes

OUTSIDE_PALLAS = "run_scoped lowering outside of Pallas does not support collective_axes."


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


HEADER = """\
import functools
from functools import partial
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
"""

CALL_FORM = HEADER + dedent(
    """\
    def scaled(x):
        def body(ref):
            ref[...] = x * 2
            return ref[...] + 1
        return pl.run_scoped(body, pltpu.VMEM(x.shape, x.dtype), collective_axes="core")
    result = jax.jit(scaled)(jnp.ones((8, 128)))
    """
)

MULTILINE_FORM = HEADER + dedent(
    """\
    def scaled(x):
        def body(ref):
            ref[...] = x * 2
            return ref[...] + 1
        return pl.run_scoped(
            body,
            pltpu.VMEM(x.shape, x.dtype),
            collective_axes="core",  # shared
        )
    result = jax.jit(scaled)(jnp.ones((8, 128)))
    """
)

DECORATOR_FORM = HEADER + dedent(
    """\
    def scaled(x):
        @functools.partial(pl.run_scoped, ref=pltpu.VMEM(x.shape, x.dtype), collective_axes="x")
        def body(ref):
            ref[...] = x * 2
            return ref[...] + 1
        return body
    result = jax.jit(scaled)(jnp.ones((8, 128)))
    """
)

KWARGS_FORM = HEADER + dedent(
    """\
    opts = {"collective_axes": ("x", "y")}
    def scaled(x):
        def body(ref):
            ref[...] = x * 2
            return ref[...] + 1
        return pl.run_scoped(body, pltpu.VMEM(x.shape, x.dtype), **opts)
    result = jax.jit(scaled)(jnp.ones((8, 128)))
    """
)

FILENAME = "<rewrite-test-cell>"


def run(source: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "rewrite_test"}
    exec(compile(source, FILENAME, "exec"), namespace)
    return namespace


def failing_line(exc: BaseException) -> int:
    """The last line of the cell in the traceback, where the notebook helper would look."""
    tb = exc.__cause__.__traceback__ if exc.__cause__ is not None else exc.__traceback__
    lines = [frame.lineno for frame in traceback.extract_tb(tb) if frame.filename == FILENAME]
    assert lines[-1] is not None
    return lines[-1]


@pytest.mark.parametrize(
    ("source", "expected_line"),
    [
        pytest.param(CALL_FORM, "return pl.run_scoped(", id="call"),
        pytest.param(MULTILINE_FORM, "return pl.run_scoped(", id="multiline"),
        # Python 3.11 reports the decorator line, not the `def` line.
        pytest.param(DECORATOR_FORM, "@functools.partial(pl.run_scoped,", id="decorator"),
        pytest.param(KWARGS_FORM, "return pl.run_scoped(", id="double-star"),
    ],
)
def test_real_jax_before_and_after(source: str, expected_line: str) -> None:
    with pytest.raises(ValueError, match=OUTSIDE_PALLAS) as info:
        run(source)
    lineno = failing_line(info.value)
    assert source.splitlines()[lineno - 1].strip().startswith(expected_line)

    fixed = remove_collective_axes(source, lineno)
    assert "collective_axes=" not in fixed.replace('k != "collective_axes"', "")
    result = run(fixed)["result"]
    assert result.shape == (8, 128)
    np.testing.assert_array_equal(np.asarray(result), np.full((8, 128), 3.0, np.float32))
