"""A Pallas kernel body that closes over an array instead of taking it as an input.

A kernel sees memory only through its refs; an array it closes over would have to be baked
into the kernel as a constant, which Pallas refuses: ``ValueError: The kernel function in
the pallas_call add_bias at <file>:3 captures constants [f32[128]]. You should pass them as
inputs.`` (Before jax-ml/jax#22746 banned it, the same kernel failed with ``safe_zip()
argument 2 is shorter than argument 1``.)

Reports: jax-ml/jax#21557 (a kernel closing over an ``np.arange`` index array),
jax-ml/jax#23301 (a value closed over by a ``fori_loop`` body inside a kernel).
"""

from __future__ import annotations

import re

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import NO_FIX, Example
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match

CODE = "JNH215"
TITLE = "Pallas kernel closing over an array"
MESSAGE = "captures constants"

_CAPTURES = re.compile(r"The kernel function in the pallas_call (?P<kernel>\S+)"
                       r"(?: at (?P<file>\S.*?):(?P<line>\d+))? captures constants "
                       r"\[(?P<shapes>.*)\]\.")  # the shapes hold brackets: f32[128]
_ARRAYS = ("ArrayImpl", "numpy.ndarray")

_BIAS = "bias = jnp.arange(128.0)"
_CALL = ("out = pl.pallas_call(add_bias, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),"
         "\n                     interpret=True)(jnp.ones((8, 128)){0})")

EXAMPLES = (
    Example(
        setup=(_BIAS, "def add_bias(x_ref, o_ref):\n    o_ref[...] = x_ref[...] + bias"),
        failing=_CALL.format(""),
        fix=NO_FIX,
        check="bool((out == 1 + jnp.arange(128.0)).all())",
        fixed=("import jax, jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n"
               + _BIAS,
               "def add_bias(x_ref, b_ref, o_ref):\n    o_ref[...] = x_ref[...] + b_ref[...]",
               _CALL.format(", bias")),
    ),
)

WHY = _entry.prose("""
A Pallas kernel runs on the chip with its inputs and outputs in memory the kernel reaches
through refs, block by block. An array from outside the kernel is neither: Pallas would have
to embed it as a constant, and it refuses. Python numbers are fine to close over; arrays
must come in as inputs, with a BlockSpec like any other.
""")


MATCH = Match(MESSAGE, pattern=_CAPTURES)


def diagnose(ctx: ErrorContext, link: Link, found: re.Match[str]) -> Diagnosis | None:
    kernel = found["kernel"]
    place = (ctx.place(found["file"], int(found["line"]))
             if found["file"] and found["line"] else None)
    location = place or ctx.deepest_user_location()
    body = location.source if location is not None else None
    names = sorted(name for name, kind in ctx.value_types.items()
                   if kind.endswith(_ARRAYS) and body is not None
                   and re.search(rf"\b{re.escape(name)}\b", _kernel_body(body, kernel)))
    what = _tracing.quoted(names) if names else "an array from outside it"
    explanation = (f"The kernel {kernel}{_entry.at(location)} uses {what} ({found['shapes']}) "
                   "without taking it as an input, and Pallas kernels cannot close over arrays.")
    first = names[0] if names else "c"
    notes = [f"Pass {first} to the pallas_call as one more input: add a {first}_ref parameter "
             f"to {kernel} (before the outputs), read {first}_ref[...] there, give it an "
             f"in_specs entry if the call has in_specs (pl.BlockSpec({first}.shape, lambda "
             f"*_: (0,) * {first}.ndim) for the whole array), and call it with {first}."]
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), notes=notes,
                            error=link.summary.splitlines()[0])


def _kernel_body(source: str, kernel: str) -> str:
    """The text of ``def kernel`` in ``source`` (the whole source when it is not found)."""
    parsed = _tracing.parse(source)
    definition = _tracing.find_def(parsed[0], kernel, None) if parsed is not None else None
    if definition is None or parsed is None:
        return source
    return "\n".join(parsed[1].splitlines()[definition.lineno - 1:definition.end_lineno])
