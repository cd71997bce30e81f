"""``pl.empty_ref_like`` given a ref (or an array) where it takes a type:
``pl.empty_ref_like(x_ref)`` (``ValueError: empty_ref_like does not support <class
'...DynamicJaxprTracer'>``).

``empty_ref_like`` makes a new ref from a description of one: a memory space's type
(``pltpu.VMEM(shape, dtype)``) or a ``jax.ShapeDtypeStruct``. The explanation says so in the
user's names (``x_ref.shape``, ``x_ref.dtype``); inside a kernel, scratch usually comes from
``scratch_shapes`` or ``pl.run_scoped`` instead. No fix: the memory space is the user's
choice.

Reports: the Pallas refs guide's ``empty_ref_like`` examples; jax-ml/jax#39288 (refs made
and mapped in ways the API does not take).
"""

from __future__ import annotations

from jax_nbhelp.catalog import _entry, _operands, _tracing
from jax_nbhelp.catalog._example import NO_FIX, corrected_cell
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match

CODE = "JNH219"
TITLE = "pl.empty_ref_like given a ref where it takes a type"
MESSAGE = "empty_ref_like does not support"

_IMPORTS = "import jax, jax.numpy as jnp\nfrom jax.experimental import pallas as pl"

_DOUBLED = ("@jax.jit\ndef doubled(x):\n    buf = pl.empty_ref_like({})\n"
            "    buf[...] = x * 2\n    return buf[...]")

EXAMPLES = (
    corrected_cell((_IMPORTS, _DOUBLED.format("x")), "out = doubled(jnp.ones(3))",
                   _DOUBLED.format("jax.ShapeDtypeStruct(x.shape, x.dtype)")
                   + "\n\nout = doubled(jnp.ones(3))", NO_FIX, "out.tolist() == [2.0] * 3"),
)

WHY = _entry.prose("""
pl.empty_ref_like makes a new, empty ref from a description of one: a memory space's type
(pltpu.VMEM(shape, dtype), plgpu.SMEM(...)) or a jax.ShapeDtypeStruct. A ref or an array is
not a description: pass its shape and dtype. Inside a kernel, scratch memory comes from the
pallas_call's scratch_shapes or from pl.run_scoped.
""")


MATCH = Match(MESSAGE, "ValueError")


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    location = ctx.deepest_user_location()
    call = next(iter(_operands.operations(ctx, location, ("empty_ref_like",))), None)
    given = call.operands[0].text if call is not None and call.operands else "x"
    subject = _tracing.quoted_line(location, "Your code")
    explanation = (f"{subject} passes {given} to pl.empty_ref_like, which takes a type "
                   "(a memory space's type or a ShapeDtypeStruct), not a ref or an array.")
    notes = [f"Describe it: `pl.empty_ref_like(jax.ShapeDtypeStruct({given}.shape, "
             f"{given}.dtype))`, or a memory space's type such as "
             f"`pltpu.VMEM({given}.shape, {given}.dtype)` for scratch in VMEM."]
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.call_site(), notes=notes,
                            error=link.summary.splitlines()[0])
