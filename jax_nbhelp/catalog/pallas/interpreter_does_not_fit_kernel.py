"""A kernel run under the interpreter of the other chip family.

TPU interpret mode (``pltpu.InterpretParams()``) simulates TPU memory (VMEM, SMEM, HBM,
semaphores); GPU interpret mode (``InterpretGPUParams()``) simulates Mosaic GPU meshes and
memory (GMEM, SMEM). Each rejects the other's kernels, with messages that do not say so
(measured on jax 0.10.2):

- GPU interpreter, TPU mesh: ``ValueError: Unsupported mesh type: <class '...TensorCoreMesh'>``
- TPU interpreter, GPU memory: ``KeyError: <MemorySpace.GMEM: 'gmem'>`` (or ``SMEM``)
- GPU interpreter, TPU memory: ``KeyError: <MemorySpace.ANY: 'any'>``, ``KeyError: 'VMEM'``,
  or, for TPU scratch inside a GPU kernel, ``NotImplementedError: Unsupported memory space:
  vmem``.
- TPU interpreter, a Triton-style GPU kernel (``compiler_params=`` from
  ``jax.experimental.pallas.triton``, as JAX's shipped GPU ops pass): a bare
  ``AssertionError`` (it asserts the compiler params are Mosaic TPU's). Plain
  ``interpret=True`` runs such a kernel. Before the per-family switch, a session whose "from
  now on" fix chose TPU interpret mode ran all of JAX's GPU ops into it.
"""

from __future__ import annotations

from jax_nbhelp.catalog import _entry, _interpreter_choice
from jax_nbhelp.catalog._example import Example, add_one_through_vmem, edited
from jax_nbhelp.core.model import Diagnosis, Fix
from jax_nbhelp.core.protocol import cell_label
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.fix import interpret_fixes
from jax_nbhelp.jaxapi import interpret_modes

CODE = "JNH205"
TITLE = "Kernel run under the other chip's interpret mode"

_MEMORY_NAMES = frozenset({"vmem", "smem", "gmem", "any", "hbm", "semaphore_mem", "tmem",
                           "semaphore"})
_GPU_HOME = "jax._src.pallas.mosaic_gpu.interpret.params"
_SHAPE = "jax.ShapeDtypeStruct((8, 128), jnp.float32)"

_TPU_KERNEL = f'''\
import functools
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from {_GPU_HOME} import InterpretGPUParams

mesh = pltpu.create_tensorcore_mesh("core", num_cores=1)

@functools.partial(pl.kernel, out_type={_SHAPE}, mesh=mesh, interpret=InterpretGPUParams())
def add_one(x_hbm, o_hbm):
{add_one_through_vmem("x_hbm", "o_hbm")}'''

_GPU_KERNEL = f'''\
import functools
import jax, jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu

@functools.partial(plgpu.kernel, out_type={_SHAPE}, interpret=pltpu.InterpretParams())
def add_one(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1
'''

_DMA_KERNEL = f'''\
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from {_GPU_HOME} import InterpretGPUParams

def add_one(x_hbm, o_ref, buf, sem):
    copy = pltpu.make_async_copy(x_hbm, buf, sem)
    copy.start()
    copy.wait()
    o_ref[...] = buf[...] + 1

add_one_kernel = pl.pallas_call(
    add_one,
    out_shape={_SHAPE},
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA],
    interpret=InterpretGPUParams(),
)
'''

# A copy to a device over a mesh axis (here the kernel's own device, on a one-device mesh):
# the shape of all_gather's ring, which only TPU interpret mode simulates.
_REMOTE_COPY = """\
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((1,), ("x",))

def send(x_ref, o_ref, send_sem, recv_sem):
    me = jax.lax.axis_index("x")
    copy = pltpu.make_async_remote_copy(x_ref, o_ref, send_sem, recv_sem, device_id=(me,),
                                        device_id_type=pltpu.DeviceIdType.MESH)
    copy.start()
    copy.wait()

def passed_on(x):
    any_space = pl.BlockSpec(memory_space=pl.ANY)
    return pl.pallas_call(send, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          in_specs=[any_space], out_specs=any_space,
                          scratch_shapes=[pltpu.SemaphoreType.DMA] * 2,
                          interpret=True)(x)

x = jax.device_put(jnp.ones((8, 128)), NamedSharding(mesh, P("x")))
"""
_REMOTE_CALL = ("out = jax.shard_map(passed_on, mesh=mesh, in_specs=P('x'), out_specs=P('x'),"
                "\n                    check_vma=False)(x)")

_CALL = "out = add_one(jnp.ones((8, 128)))"
_CHECK = "bool((out == 2).all())"

_TO_TPU = ("Pass interpret=pltpu.InterpretParams()", "interpret=pltpu.InterpretParams()")

EXAMPLES = (
    edited(_TPU_KERNEL, _CALL, _TO_TPU[0], _CHECK, ("interpret=InterpretGPUParams()", _TO_TPU[1]),
           requires=(_GPU_HOME,)),
    Example(setup=(_GPU_KERNEL,), failing=_CALL, fix="Re-run in GPU interpret mode", check=_CHECK,
            requires=(_GPU_HOME,)),
    # Before 0.10 (which keeps InterpretParams in this module), TPU interpret mode keeps its
    # simulated shared memory across kernels of a process and asserts that a later kernel has
    # as many cores: after the catalog's two-core examples, this one fails.
    edited(_REMOTE_COPY, _REMOTE_CALL, _TO_TPU[0], "bool((out == 1).all())",
           ("interpret=True", _TO_TPU[1]),
           requires=("jax:shard_map", "jax._src.pallas.mosaic.interpret.params")),
    Example(setup=(_DMA_KERNEL,), failing="out = add_one_kernel(jnp.ones((8, 128)))",
            fix="Re-run in TPU interpret mode", check=_CHECK, requires=(_GPU_HOME,)),
)

WHY = _entry.prose("""
Pallas has one interpreter per chip family, and each simulates only its own chip: TPU
interpret mode (pltpu.InterpretParams()) knows TPU meshes and TPU memory (VMEM, SMEM, HBM,
semaphores); GPU interpret mode (InterpretGPUParams()) knows Mosaic GPU meshes and GPU
memory (GMEM, SMEM); plain interpret=True runs Triton-style GPU kernels. Given the other
family's kernel, an interpreter fails on the first mesh, memory space or compiler parameter
it does not know, with a message that does not say why.
""")

FAMILY = {"tpu": "TPU", "gpu": "GPU", "hlo": "Triton-style GPU"}  # a kernel's kind
# the interpreter that raised, as a sentence names it
USED = {"tpu": "TPU interpret mode", "gpu": "GPU interpret mode",
        "hlo": "plain interpret mode (interpret=True)"}
INTERPRETER = {"tpu": "TPU", "gpu": "GPU", "hlo": "HLO"}
_DISCHARGE_FILE = "/pallas/mosaic/primitives.py"


def _hlo_remote_copy(ctx: ErrorContext, link: Link) -> bool:
    """Plain interpret=True failing at a TPU kernel's DMA (its remote copy's device id)."""
    facts = ctx.kernel
    return (link.is_a("TypeError") and link.message.startswith("unsupported operand type(s)")
            and facts is not None and facts.interpret == "True" and facts.family == "tpu"
            and any(_DISCHARGE_FILE in frame.filename.replace("\\", "/")
                    for frame in link.frames))


def _is_mismatch_message(link: Link) -> bool:
    message = link.message
    if link.type_name == "AssertionError" and not message.strip():
        return True  # the TPU interpreter asserting the compiler params are its own
    if message.startswith(("Unsupported mesh type", "Unsupported memory space")):
        return True
    if link.is_a("KeyError"):
        key = message.strip("'\"").lower()
        if "memoryspace." in key:
            return True
        return key in _MEMORY_NAMES
    return False


TRIGGERS = ("Unsupported mesh type", "Unsupported memory space", "KeyError", "AssertionError",
            "unsupported operand type(s)")


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    top = ctx.top
    if _hlo_remote_copy(ctx, top):
        interpreter: str | None = "hlo"
    elif _is_mismatch_message(top):
        interpreter = interpret_modes.raising_interpreter([f.filename for f in top.frames])
    else:
        return None
    if interpreter is None:
        return None
    situation = interpret_fixes.analyse(ctx)
    choice = _interpreter_choice.choose(ctx, situation.plan)
    triton = ctx.kernel is not None and ctx.kernel.triton
    if choice.mode == interpreter or (choice.mode == "hlo" and not triton):
        return None  # the interpreter fits the kernel: some other problem
    if top.type_name == "AssertionError" and not (triton or choice.mode == "gpu"):
        return None  # an assertion of the interpreter's own, not the compiler-params check
    used = USED[interpreter]
    where = situation.where
    at = f" built at {where.label}" if where is not None else ""
    reasons = " and ".join(choice.reasons[:2])
    error = top.summary if top.message else top.type_name
    notes: list[str] = []
    fixes: tuple[Fix, ...] = ()
    if choice.mode is None:
        explanation = (
            f"The Pallas kernel{at} ran under {used}, which stopped at '{error}'. The kernel "
            f"mixes TPU and GPU features ({reasons}), so neither interpreter can run it."
        )
        notes.append(
            "A Mosaic GPU kernel takes GPU memory: plgpu.SMEM(...) scratch in place of "
            "pltpu.VMEM(...) runs under GPU interpret mode. A TPU kernel takes TPU memory and "
            "a TPU mesh."
        )
    else:
        right = interpret_modes.describe(choice.mode)
        explanation = (
            f"The Pallas kernel{at} ran under {used}, but it is a "
            f"{FAMILY[choice.mode]} kernel: {reasons}. The {INTERPRETER[interpreter]} "
            f"interpreter does not know it and stopped at '{error}'. It needs {right.name} "
            f"(interpret={right.code})."
        )
        reason = interpret_modes.params_unavailable(choice.mode)
        if reason is not None:
            explanation += f" jax_nbhelp cannot offer it: {reason}."
        fixes = (
            interpret_fixes.runtime_fix(ctx, situation, choice.mode),
            interpret_fixes.rewrite_fix(ctx, situation, choice.mode),
        )
        if situation.plan.reruns:
            cells = ", ".join(cell_label(n) for n in situation.plan.reruns)
            notes.append(
                f"The interpret switch overrides interpret= but is read when a kernel is "
                f"built, so {cells}, which built this one, run again under it."
            )
    return _entry.diagnosis(ctx, __name__, explanation, location=where,
                            call_site=ctx.call_site(),
                            fixes=fixes, notes=notes, error=error)
