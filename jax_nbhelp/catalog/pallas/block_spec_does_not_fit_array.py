"""A ``BlockSpec`` whose block shape or index map does not fit the array it blocks.

``pl.BlockSpec(block_shape, index_map)`` needs one block dimension per array dimension, and
an index map that returns one block index per block dimension. ``pallas_call`` checks both:
``Block shape for args[0] (= (Blocked(block_size=8),)) must have the same number of
dimensions as the array shape (16, 128).`` and ``Index map function <lambda> at <file>:3 for
args[0] must return 2 values to match block_shape=(...). Currently returning 1 values``.

Reports: jax-ml/jax-triton#170 (a 1-D access of a 2-D ref, then "safe_zip() argument 2 is
longer than argument 1"), which led to these checks (jax-ml/jax#22173).
"""

from __future__ import annotations

import re

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import NO_FIX, corrected
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match

CODE = "JNH216"
TITLE = "BlockSpec that does not fit its array"
RANK = "must have the same number of dimensions as the array shape"
INDEX_MAP = "to match block_shape"

_RANK_RE = re.compile(r"Block shape for (?P<what>\S+) \(= \((?P<block>.*)\)\) must have the "
                      r"same number of dimensions as the array shape (?P<shape>\([^)]*\))")
_MAP_RE = re.compile(r"Index map function (?P<function>\S+)(?: at (?P<file>\S.*?):(?P<line>\d+))?"
                     r" for (?P<what>\S+) must return (?P<want>\d+) values to match "
                     r"block_shape=\((?P<block>.*)\)\. Currently returning (?P<got>\d+) values")
_DIM_RE = re.compile(r"block_size=(\d+)|None")

_IMPORTS = "import jax, jax.numpy as jnp\nfrom jax.experimental import pallas as pl"
_KERNEL = "def add_one(x_ref, o_ref):\n    o_ref[...] = x_ref[...] + 1"
_CALL = ("out = pl.pallas_call(add_one, out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),"
         "\n                     grid=(2,), in_specs=[spec], out_specs=spec,"
         "\n                     interpret=True)(jnp.ones((16, 128)))")
_GOOD = "spec = pl.BlockSpec((8, 128), lambda i: (i, 0))"

EXAMPLES = (
    corrected(_IMPORTS + "\n" + _KERNEL, "spec = pl.BlockSpec((8,), lambda i: (i,))", _GOOD,
              _CALL, NO_FIX, "bool((out == 2).all())"),
    corrected(_IMPORTS + "\n" + _KERNEL, "spec = pl.BlockSpec((8, 128), lambda i: (i,))",
              _GOOD, _CALL, NO_FIX, "bool((out == 2).all())"),
)

WHY = _entry.prose("""
A BlockSpec cuts an array into blocks: block_shape has one entry per dimension of the array
(None for a whole dimension), and the index map turns the grid indices into one block index
per dimension. Pallas checks both against the array before it traces the kernel.
""")


def _operand(what: str) -> str:
    """``args[0]`` as a user says it: "input 0"; outputs are named as JAX names them."""
    found = re.fullmatch(r"args\[(\d+)\]", what)
    return f"input {found.group(1)} of the pallas_call" if found else what


MATCH = Match(RANK, "ValueError", also=(INDEX_MAP,))


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    rank = _RANK_RE.search(link.message)
    index_map = _MAP_RE.search(link.message)
    if rank is None and index_map is None:
        return None
    location = ctx.deepest_user_location()
    if rank is not None:
        block = [m.group(1) or "None" for m in _DIM_RE.finditer(rank["block"])]
        shape = rank["shape"]
        explanation = (f"The BlockSpec of {_operand(rank['what'])} has a block shape with "
                       f"{len(block)} dimension{'s' if len(block) != 1 else ''} "
                       f"({', '.join(block)}), but the array has shape {shape}: a block needs "
                       "one entry per dimension of the array.")
        notes = [f"Give the block one entry per dimension of {shape} (None keeps a whole "
                 "dimension), and make the index map return one block index per entry."]
    else:
        assert index_map is not None
        place = (ctx.place(index_map["file"], int(index_map["line"]))
                 if index_map["file"] and index_map["line"] else None)
        location = place or location
        subject = (f"The index map in {_tracing.quoted_line(place, '')}" if place is not None
                   else f"The index map of {_operand(index_map['what'])}")
        explanation = (f"{subject} returns {index_map['got']} block "
                       f"{'index' if index_map['got'] == '1' else 'indices'}, but the block "
                       f"shape has {index_map['want']} dimensions: the index map returns one "
                       "block index per block dimension.")
        notes = ["For a block that spans a whole dimension, return 0 for that dimension: "
                 "lambda i: (i, 0) for blocks of rows."]
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), notes=notes,
                            error=link.summary.splitlines()[0])
