"""A kernel uses a feature that the Pallas interpreter of this JAX release does not have.

The interpreters (TPU interpret mode, ``pltpu.InterpretParams()``; GPU interpret mode,
``InterpretGPUParams()``) run most kernels, but stop with a bare ``NotImplementedError``
at a few features they do not simulate yet (measured on jax 0.10.2; the same on 0.9.2):

- TPU interpret, a semaphore signal or remote DMA addressed to another core by naming the
  core axis in ``device_id`` (``device_id={"core": c}``): ``NotImplementedError:
  {'core': JitTracer(int32[])}`` (the axes it could not map to devices; a one-core mesh
  fails the same way, since the core axis is still named);
- GPU interpret, ``pl.run_state`` (Mosaic GPU's WGMMA accumulators) inside a kernel:
  ``NotImplementedError: Higher-order primitive run_state``.

Both are raised while the kernel is traced for the interpreter, so the user's kernel line
is the deepest user frame. Nothing is wrong with the kernel itself.

- TPU interpret, inside its host callbacks, an ``AttributeError`` that names one of JAX's
  own Pallas objects, not the user's: ragged paged attention (JAX's shipped op, given its
  block sizes) stops at ``'ReshapeTransform' object has no attribute 'indices'``: the
  interpreter's memory simulation does not handle a reshaped ref (jax 0.10.2). Claimed
  only when the raising frames are the interpreter's and the type is defined by Pallas.
"""

from __future__ import annotations

import re

from jax_nbhelp.catalog import _entry
from jax_nbhelp.catalog._example import NO_FIX, Example, edited
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.callback_errors import embedded_links
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.jaxapi import interpret_modes

CODE = "JNH212"
TITLE = "Kernel uses a feature the Pallas interpreter does not have"

_GPU_HOME = "jax._src.pallas.mosaic_gpu.interpret.params"

# TPU interpret: the device_id axes it could not map to devices, as a dict's repr.
_AXES_RE = re.compile(r"^\{(?P<body>'[^']+': .*)\}$", re.DOTALL)
_AXIS_RE = re.compile(r"'([^']+)': ")
# Inside an interpreter: one of Pallas's own objects lacks what the interpreter asks of it.
_INTERNAL_RE = re.compile(r"^'(?P<type>[A-Z]\w*)' object has no attribute '(?P<attr>\w+)'$")
# GPU interpret: a primitive that carries a jaxpr of its own.
_HIGHER_ORDER_RE = re.compile(r"^Higher-order primitive (?P<primitive>\w+)$")

_CORES = '''\
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

mesh = pltpu.create_tensorcore_mesh("core", num_cores=2)

def ping_body(x_hbm, o_hbm):
    def body(sem):
        core = jax.lax.axis_index("core")
        pl.semaphore_signal(sem, 1, device_id={"core": 1 - core})
        pl.semaphore_wait(sem, 1)

        @pl.when(core == 0)
        def _():
            pltpu.sync_copy(x_hbm, o_hbm)

    pl.run_scoped(body, pltpu.SemaphoreType.REGULAR)

ping = pl.kernel(ping_body, jax.ShapeDtypeStruct((8, 128), jnp.float32), mesh=mesh,
                 interpret=pltpu.InterpretParams())
'''

_RUN_STATE = f'''\
import functools
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from {_GPU_HOME} import InterpretGPUParams

@functools.partial(plgpu.kernel, out_type=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                   interpret=InterpretGPUParams())
def add_one(x_ref, o_ref):
    def body(acc_ref):
        acc_ref[...] += 1
    o_ref[...] = pl.run_state(body)(x_ref[...])
'''

_RPA = "jax.experimental.pallas.ops.tpu.ragged_paged_attention"
# JAX's shipped op, given the block sizes it would look up for the chip (see JNH407).
_RAGGED = f"""\
from {_RPA} import ragged_paged_attention
q = jnp.ones((16, 4, 128))
kv_pages = jnp.ones((8, 16, 4, 128))
paged = (kv_pages, jnp.array([32, 48], jnp.int32), jnp.arange(8, dtype=jnp.int32).reshape(2, 4),
         jnp.array([0, 8, 16], jnp.int32), jnp.array([2], jnp.int32))"""

EXAMPLES = (
    # Before 0.10 (which keeps InterpretParams in this module) a TPU-interpreted kernel that
    # stops midway leaves the interpreter's shared memory set up for it, and the process's
    # next TPU-interpreted kernel with another core count asserts.
    Example(setup=(_RAGGED,), fix=NO_FIX, check="True",
            failing=("with pltpu.force_tpu_interpret_mode():\n"
                     "    out = ragged_paged_attention(q, *paged, num_kv_pages_per_block=4,\n"
                     "                                 num_queries_per_block=16)"),
            requires=(_RPA, "jax._src.pallas.mosaic.interpret.params")),
    # The same signal spelled with core_index=, which TPU interpret mode runs.
    edited(_CORES, "out = ping(jnp.ones((8, 128)))", NO_FIX, "bool((out == 1).all())",
           ('device_id={"core": 1 - core}', "core_index=1 - core")),
    edited(_RUN_STATE, "out = add_one(jnp.ones((8, 128)))", NO_FIX, "bool((out == 2).all())",
           ("    def body(acc_ref):\n        acc_ref[...] += 1\n", ""),
           ("pl.run_state(body)(x_ref[...])", "x_ref[...] + 1"), requires=(_GPU_HOME,)),
)

WHY = _entry.prose("""
Pallas's interpreters run a kernel on the CPU by simulating the chip: TPU interpret mode
(pltpu.InterpretParams()) its cores, memories, DMAs and semaphores; GPU interpret mode
(InterpretGPUParams()) Mosaic GPU's threads, memories and barriers. They do not cover every
feature of the compilers yet, and stop at one they lack with a bare NotImplementedError that
names an internal detail. The kernel may well be right: only a real chip, or a version of
the kernel without that feature, can run it.
""")

FAMILY = {"tpu": "TPU interpret mode (pltpu.InterpretParams())",
          "gpu": "GPU interpret mode (InterpretGPUParams())"}


def _links(ctx: ErrorContext) -> list[Link]:
    """The chain's exceptions and those their text holds (a host callback's error, also one
    nested in another callback's)."""
    found: list[Link] = []
    pending = list(ctx.chain)
    while pending and len(found) < 32:
        link = pending.pop(0)
        found.append(link)
        pending.extend(embedded_links(link, ctx._shell))
    return found


def _feature(link: Link, interpreter: str, line: str) -> tuple[str, str] | None:
    """The feature the interpreter lacks, in a user's words, and what else runs the kernel."""
    message = link.message.strip()
    if link.is_a("AttributeError"):
        return _internal_object(link, message)
    if interpreter == "tpu" and (match := _AXES_RE.match(message)):
        axes = ", ".join(f"'{axis}'" for axis in _AXIS_RE.findall(match["body"]))
        if "signal" in line:
            what = "a semaphore signalled across cores"
        elif "copy" in line or "start" in line:
            what = "a DMA (remote copy) sent to another core"
        else:
            what = "a semaphore signal or DMA addressed to another core"
        feature = (f"{what}, addressed by naming the core axis in device_id ({axes}): TPU "
                   "interpret mode maps device_id to devices only, and has no device "
                   "axis called that")
        alternatives = (
            "Run it on a real TPU. To test the rest of the kernel here, run it on one core "
            "with the cross-core signal or copy left out (a one-core mesh alone does not "
            "help: device_id still names the core axis). For a semaphore signal, "
            "pl.semaphore_signal(sem, inc, core_index=c) is the same request (Mosaic turns a "
            "device_id that names only the core axis into core_index), and TPU interpret "
            "mode runs it."
        )
        return feature, alternatives
    if interpreter == "gpu" and (match := _HIGHER_ORDER_RE.match(message)):
        primitive = match["primitive"]
        if primitive == "run_state":
            feature = ("pl.run_state inside a Mosaic GPU kernel (as used for WGMMA "
                       "accumulators)")
        else:
            feature = (f"the primitive {primitive}, which carries a function of its own, "
                       "inside a Mosaic GPU kernel")
        alternatives = (
            "Run it on a real GPU (Mosaic GPU compiles it), or, to test the rest of the "
            "kernel here, compute that part without it (for pl.run_state: read the value, "
            "update it, and write it back through the ref). No other interpreter runs "
            "Mosaic GPU kernels."
        )
        return feature, alternatives
    return None


def _internal_object(link: Link, message: str) -> tuple[str, str] | None:
    """An interpreter asking one of Pallas's own objects for what it lacks: a gap in the
    interpreter (the raising frame is the interpreter's, the type Pallas's)."""
    match = _INTERNAL_RE.match(message)
    if match is None or interpret_modes.raising_interpreter(
            [link.frames[-1].filename] if link.frames else []) is None:
        return None
    kind = match["type"]
    if kind.endswith("Transform"):
        what = ("a transformed ref (a view of a ref through .reshape, .bitcast or an index, "
                f"which Pallas keeps as a {kind})")
    else:
        what = f"one of Pallas's own objects (a {kind})"
    feature = (f"{what}, which the interpreter's memory simulation does not handle: it asked "
               f"the {kind} for '{match['attr']}'")
    alternatives = (
        "Run it on a real TPU, where the compiler handles it. This is a gap in this JAX "
        "release's interpreter (a newer JAX may run it; report it to JAX with the kernel if "
        "it does not). To test the rest of the kernel here, index the ref directly instead "
        "of reshaping it."
    )
    return feature, alternatives


TRIGGERS = ("NotImplementedError", "object has no attribute")


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    location = ctx.deepest_user_location()
    for link in _links(ctx):
        if not (link.is_a("NotImplementedError") or link.is_a("AttributeError")):
            continue
        interpreter: str | None = interpret_modes.raising_interpreter(
            [f.filename for f in link.frames])
        if interpreter is None and ctx.kernel is not None and ctx.kernel.interpret in FAMILY:
            interpreter = ctx.kernel.interpret
        if interpreter is None:
            continue
        found = _feature(link, interpreter, location.line if location is not None else "")
        if found is not None:
            break
    else:
        return None
    feature, alternatives = found
    where = f"at {location.label} " if location is not None else ""
    explanation = (
        f"The kernel line {where}uses {feature}. {FAMILY[interpreter]} of this JAX release "
        f"does not have that feature, and stopped with '{link.summary}'. This is a limit of "
        "the interpreter, not a bug in your kernel."
    )
    call_site = ctx.call_site()
    return _entry.diagnosis(ctx, __name__, explanation, location=location, call_site=call_site,
                            fixes=(), notes=(alternatives,),
                            error=ctx.top.summary if ctx.top.message else ctx.top.type_name)
