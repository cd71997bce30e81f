"""A TPU-only query of the chip (``pltpu.get_tpu_info()``) on a runtime without a TPU.

``get_tpu_info()`` reads the chip's properties (lanes, sublanes, VMEM size, generation,
SparseCores) from JAX's table of TPU chips, keyed by the default device's kind. A CPU
device's kind is ``cpu``, which the table does not have, so it raises
``ValueError: Unsupported TPU device kind: cpu`` (jax 0.9.2 to 0.10.2). So does everything
built on it: ``plsc.get_sparse_core_info()``, and inside JAX, ``pltpu.emit_pipeline``'s
tiling of each block copy, even in TPU interpret mode.
"""

from __future__ import annotations

import re
from typing import Any

from jax_nbhelp.catalog import _entry
from jax_nbhelp.catalog._example import NO_FIX, PRELUDE, Example
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext, Frame, Link
from jax_nbhelp.jaxapi import interpret_modes, jax_probe

CODE = "JNH206"
TITLE = "TPU chip queried on a runtime without a TPU"
MESSAGE = "Unsupported TPU device kind: "

_INFO_HOME = "jax._src.pallas.mosaic.tpu_info"
# The chip jax_nbhelp names for a CPU run: one TensorCore per device, no SparseCore; the
# SparseCore queries name a chip that has one.
_CHIP = ("TPU_V5E", "v5e")
_SPARSE_CORE_CHIP = ("TPU_V6E", "v6e")

_PIPELINE_KERNEL = """\
def add_one(x_hbm, o_hbm):
    def block(x_ref, o_ref):
        o_ref[...] = x_ref[...] + 1
    spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
    pltpu.emit_pipeline(block, grid=(2,), in_specs=[spec], out_specs=[spec])(x_hbm, o_hbm)

x = jnp.arange(16 * 128, dtype=jnp.float32).reshape(16, 128)
hbm = pl.BlockSpec(memory_space=pl.ANY)"""
_PIPELINE_CALL = ("out = pl.pallas_call(add_one, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),"
                  "\n                     in_specs=[hbm], out_specs=hbm,"
                  "\n                     interpret=pltpu.InterpretParams())(x)")
_REGISTRY = ('tpu_info.registry["cpu"] = lambda: tpu_info.get_tpu_info_for_chip('
             "tpu_info.ChipVersion.TPU_V5E, 1)")

_PIPELINE_ON_CPU = "\n".join((
    "from jax._src.pallas.mosaic import tpu_info  # private: JAX's table of TPU chips",
    _REGISTRY,
    "try:",
    *("    " + line for line in _PIPELINE_CALL.splitlines()),
    "finally:  # leave JAX as it was",
    '    del tpu_info.registry["cpu"]',
    "    tpu_info.get_tpu_info.cache_clear()",
))

# The fixed examples use JAX's table of chips (not in jax 0.8).
_FOR_CHIP = "jax.experimental.pallas.tpu:get_tpu_info_for_chip"

_TPU = "from jax.experimental.pallas import tpu as pltpu\n"

EXAMPLES = (
    Example(setup=(), failing="lanes = pltpu.get_tpu_info().num_lanes", fix=NO_FIX,
            check="lanes == 128", requires=(_FOR_CHIP,),
            fixed=(_TPU + "lanes = pltpu.get_tpu_info_for_chip(pltpu.ChipVersion.TPU_V5E, 1)"
                   ".num_lanes",)),
    Example(setup=("from jax.experimental.pallas import tpu_sc as plsc",),
            failing="sc = plsc.get_sparse_core_info()", fix=NO_FIX, check="sc.num_lanes == 8",
            requires=(_FOR_CHIP,),
            fixed=(_TPU + "sc = pltpu.get_tpu_info_for_chip(pltpu.ChipVersion.TPU_V6E, 1)"
                   ".sparse_core",)),
    # emit_pipeline asks inside JAX: there is no query of the user's to replace. The CPU run
    # gives JAX's private table an entry for the CPU, and takes it out again afterwards.
    Example(setup=(_PIPELINE_KERNEL,), failing=_PIPELINE_CALL, fix=NO_FIX,
            check="bool((out == x + 1).all())", requires=(_FOR_CHIP,),
            fixed=(PRELUDE, _PIPELINE_KERNEL, _PIPELINE_ON_CPU)),
)

WHY = _entry.prose("""
pltpu.get_tpu_info() describes the TPU chip the code runs on (lanes and sublanes per vector
register, VMEM size, generation, SparseCores) so that kernels can size their blocks for it.
JAX looks the chip up in its table by the default device's kind, and only TPU chips are in
that table. TPU interpret mode simulates a kernel on the CPU, but it does not make the CPU a
TPU: these queries still have no chip to describe.
""")

RUNTIME_NOTE = (
    "On a TPU runtime (Colab: Runtime > Change runtime type) the code runs unchanged and the "
    "query describes the real chip."
)


def _own_link(ctx: ErrorContext) -> Link | None:
    for link in ctx.chain:
        if link.is_a("ValueError") and link.message.startswith(MESSAGE):
            return link
    return None


def _after_user(link: Link) -> tuple[Frame, ...]:
    """JAX's frames below the user's innermost line (all of them when there is none)."""
    frames = link.frames
    for index in range(len(frames) - 1, -1, -1):
        if frames[index].is_user:
            return frames[index + 1:]
    return frames


def _path(frame: Frame) -> str:
    return frame.filename.replace("\\", "/")


def _query(link: Link) -> tuple[str, bool]:
    """What asked for the chip, in the user's words, and whether the user called the query
    itself (a value they could replace) rather than a JAX helper that asks inside."""
    frames = _after_user(link)
    functions = [frame.function for frame in frames]
    if any(_path(frame).endswith("pallas/mosaic/pipeline.py") for frame in frames):
        return ("pltpu.emit_pipeline(...), whose pipeline looks the chip up to choose the "
                "memory tiling of each block it copies", False)
    if "get_sparse_core_info" in functions:
        return ("plsc.get_sparse_core_info(), which reads the SparseCore part of "
                "pltpu.get_tpu_info()", True)
    if "infer_tiling" in functions:
        return ("JAX's TPU memory tiling (tpu_info.infer_tiling), which looks the chip up",
                False)
    # The user's own call: the first frame below their line that is not a cache wrapper.
    first = next((frame for frame in frames if not _path(frame).endswith("_src/util.py")),
                 None)
    if first is None or first.function == "get_tpu_info":
        return "pltpu.get_tpu_info()", True
    return f"JAX's {first.function}(), which calls tpu_info.get_tpu_info()", False


def _table(chip: str) -> Any:
    """JAX's own description of ``chip`` (one TensorCore per device), or None."""
    versions = jax_probe.attribute(_INFO_HOME, "ChipVersion")
    for_chip = jax_probe.attribute(_INFO_HOME, "get_tpu_info_for_chip")
    version = getattr(versions, chip, None)
    if version is None or for_chip is None:
        return None
    try:
        return for_chip(version, 1)
    except Exception:
        return None


_FIELD = re.compile(r"(?P<call>get_tpu_info|get_sparse_core_info)\(\)\s*\.\s*(?P<field>\w+)")


def _constant_note(line: str, sparse_core: bool) -> str:
    """How to replace the query with JAX's values for one common chip, when this JAX has
    them; otherwise, with the value the user's TPU reports."""
    chip, label = _SPARSE_CORE_CHIP if sparse_core else _CHIP
    info = _table(chip)
    part = getattr(info, "sparse_core", None) if sparse_core else info
    if part is None:
        return ("Where the value only sizes blocks or tiles, replace the query with a constant "
                "for the CPU run: the value your TPU generation reports (run the query once on "
                "a TPU runtime to read it).")
    spelled = f"pltpu.get_tpu_info_for_chip(pltpu.ChipVersion.{chip}, 1)"
    if sparse_core:
        spelled += ".sparse_core"
    values = ""
    found = _FIELD.search(line)
    if found is not None and hasattr(part, found["field"]):
        values = (f" For example {found['field']} is "
                  f"{getattr(part, found['field'])!r} there.")
    return (f"Where the value only sizes blocks or tiles, use a constant for the CPU run: "
            f"{spelled} gives the values JAX's own table holds for a TPU {label} (what the "
            f"query returns on one), without asking the device.{values} A kernel sized for "
            "another generation may choose other blocks; check on your TPU.")


def _registry_note() -> str | None:
    """The private table entry that lets a CPU run pass JAX's own queries, when it exists."""
    registry = jax_probe.attribute(_INFO_HOME, "registry")
    if not isinstance(registry, dict) or _table(_CHIP[0]) is None:
        return None
    return (
        "There is no value of yours to replace: the query is inside JAX. To run the kernel on "
        "the CPU in TPU interpret mode anyway, give JAX's table of chips an entry for the CPU "
        "before the call (a private JAX module, which may change between releases): from "
        f"jax._src.pallas.mosaic import tpu_info, then {_REGISTRY}. The kernel is then tiled "
        "as on a v5e; the tiling decides how blocks are copied, not what is computed. To undo "
        'it: del tpu_info.registry["cpu"], then tpu_info.get_tpu_info.cache_clear().'
    )


TRIGGERS = (MESSAGE,)


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    link = _own_link(ctx)
    if link is None:
        return None
    kind = link.message[len(MESSAGE):].strip()
    if kind.upper().startswith("TPU"):
        return None  # a TPU this JAX does not know yet: not a missing TPU
    platform = interpret_modes.default_platform()
    location = ctx.deepest_user_location()
    failing = ctx.failing_cell()
    query, replaceable = _query(link)
    line = f"`{location.line.strip()}`" if location is not None and location.line else "Code"
    where = _entry.at(location)
    backend = (f"jax.default_backend() is {platform!r}" if platform
               else "JAX's default device is not a TPU")
    explanation = (
        f"{line}{where} calls {query}. Looking up the chip asks the default device which TPU "
        f"it is, and this runtime has no TPU: {backend} and its device kind is {kind!r}, "
        "which is not in JAX's table of TPU chips."
    )
    notes = [RUNTIME_NOTE]
    if replaceable:
        sparse_core = query.startswith("plsc.")
        notes.append(_constant_note(location.line if location is not None else "",
                                    sparse_core))
    else:
        registry = _registry_note()
        if registry is not None:
            notes.append(registry)
    return _entry.diagnosis(ctx, __name__, explanation, location=location, call_site=failing,
                            fixes=(), notes=notes, error=link.summary)
