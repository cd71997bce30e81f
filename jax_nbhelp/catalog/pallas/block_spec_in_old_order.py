"""``pl.BlockSpec(index_map, block_shape)``: BlockSpec's arguments in the order of older
Pallas releases.

Pallas put ``block_shape`` first in mid-2024 ("BlockSpec now expects block_shape to be
passed before index_map"), warned for a while, then stopped accepting the old order. Code
and tutorials from before still pass the index map first, and ``pallas_call`` fails while
reading the block shape: ``TypeError: 'function' object is not iterable``.

Reports: kernels in jax-ml/jax#21557, jax-ml/jax#23301 and jax-ml/jax#19350 are written in
the old order; JAX's deprecation message named the swap as the fix.
"""

from __future__ import annotations

import ast

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import corrected
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH214"
TITLE = "BlockSpec arguments in the order of an older Pallas"
MESSAGE = "object is not iterable"
TRIGGERS = (MESSAGE,)

# Where JAX reads a BlockSpec's block shape (the frame names, 0.9.2 and 0.10.2).
_READERS = frozenset({"_canonicalize_block_shape", "to_block_mapping"})

_KERNEL = '''\
def add_one(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1

spec = pl.BlockSpec(lambda i: (i, 0), (8, 128))'''
_CALL = ("out = pl.pallas_call(add_one, out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),"
         "\n                     grid=(2,), in_specs=[spec], out_specs=spec,"
         "\n                     interpret=True)(jnp.ones((16, 128)))")

EXAMPLES = (
    corrected("import jax, jax.numpy as jnp\nfrom jax.experimental import pallas as pl",
              _KERNEL, _KERNEL.replace("BlockSpec(lambda i: (i, 0), (8, 128))",
                                       "BlockSpec((8, 128), lambda i: (i, 0))"),
              _CALL, "Put block_shape first", "bool((out == 2).all())"),
)

WHY = _entry.prose("""
pl.BlockSpec(block_shape, index_map) describes the block each kernel instance sees: its
shape first, then the function from grid indices to block indices. Older Pallas took them
the other way round; given a function where the shape goes, pallas_call tries to read its
dimensions and fails.
""")


def _old_order_site(ctx: ErrorContext) -> Location | None:
    """The newest cell line holding a ``BlockSpec(lambda ..., shape)`` call."""
    for number in sorted(ctx.cell_sources, reverse=True):
        parsed = _tracing.parse(ctx.cell_sources[number])
        if parsed is None:
            continue
        for node in ast.walk(parsed[0]):
            if (isinstance(node, ast.Call)
                    and (dotted(node.func) or "").rsplit(".", 1)[-1] == "BlockSpec"
                    and len(node.args) >= 2 and isinstance(node.args[0], ast.Lambda)):
                return ctx.cell(number, node.lineno)
    return None


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    top = ctx.top
    if not (top.is_a("TypeError") and MESSAGE in top.message
            and any(frame.function in _READERS for frame in top.frames)):
        return None
    site = _old_order_site(ctx)
    location = site or ctx.deepest_user_location()
    subject = _tracing.quoted_line(site, "A BlockSpec")
    explanation = (f"{subject} passes the index map first and the block shape second, the "
                   "order of older Pallas releases. This one takes block_shape first, so "
                   "pallas_call tried to read the index map as a shape.")
    fixes: tuple[Fix, ...] = ()
    notes: list[str] = []
    if site is not None:
        fixes = (_swap_fix(ctx, site),)
    else:
        notes.append("Write each BlockSpec as pl.BlockSpec(block_shape, index_map), or with "
                     "keywords: pl.BlockSpec(block_shape=..., index_map=...).")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), fixes=fixes, notes=notes)


def _swap_fix(ctx: ErrorContext, site: Location) -> Fix:
    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.blockspec_order import swap_block_spec_arguments

        return swap_block_spec_arguments(source)

    return rewrite_fix(
        ctx, site, transform, label="Put block_shape first",
        summary=("Swap the first two arguments of each BlockSpec(lambda ..., shape) in "
                 f"{site.label.split(',')[0]}, then re-run."),
        safety="Same blocks: the shape and the index map are the ones written, in the order "
               "this Pallas reads them.",
        safe=True)
