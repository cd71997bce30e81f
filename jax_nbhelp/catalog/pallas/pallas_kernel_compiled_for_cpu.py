"""A Pallas kernel compiled for the CPU, where Pallas can only interpret kernels.

``pallas_call``, ``pl.kernel``, ``core_map`` and ``plgpu.kernel`` compile kernels for TPUs and
GPUs. On the CPU backend (a CPU-only runtime, or a computation placed on the CPU) lowering
stops with "Only interpret mode is supported on CPU backend." unless the kernel was built in
one of the interpret modes; which one depends on the kernel (see ``interpret_modes``).
"""

from __future__ import annotations

from jax_nbhelp.catalog import _entry, _interpreter_choice
from jax_nbhelp.catalog._example import Example, add_one_through_vmem, edit, edited
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.core.protocol import cell_label
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match
from jax_nbhelp.fix import interpret_fixes
from jax_nbhelp.jaxapi import interpret_cost, interpret_modes

CODE = "JNH201"
TITLE = "Pallas kernel compiled for the CPU without interpret mode"
MESSAGE = "Only interpret mode is supported on CPU backend"

_SHAPE = "jax.ShapeDtypeStruct((8, 128), jnp.float32)"

_GRID = f'''\
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl

def add_one(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1

add_one_kernel = pl.pallas_call(add_one, out_shape={_SHAPE})
'''

_CORE_MAP = f'''\
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

mesh = pltpu.create_tensorcore_mesh("core", num_cores=1)

@jax.jit
def add_one(x):
    def stateful(refs):
        x_ref, o_ref = refs

        @pl.core_map(mesh)
        def _():
{add_one_through_vmem("x_ref", "o_ref", scratch="pltpu.VMEM(x.shape, x.dtype)", indent=3)}
    _, out = pl.run_state(stateful)((x, jnp.zeros_like(x)))
    return out
'''

_HBM_BODY = add_one_through_vmem("x_hbm", "o_hbm")
_MESH_KERNEL = f'''\
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

mesh = pltpu.create_tensorcore_mesh("core", num_cores=1)

def add_one_body(x_hbm, o_hbm):
{_HBM_BODY}
# The output type is passed by position: jax 0.10 calls it out_type, 0.9 out_shape.
add_one = pl.kernel(add_one_body, {_SHAPE}, mesh=mesh)
'''

_GPU_KERNEL = f'''\
import functools
import jax, jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu

@functools.partial(plgpu.kernel, out_type={_SHAPE})
def add_one(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1
'''

_CALL = "out = add_one_kernel(jnp.ones((8, 128)))"
_CALL_MESH = "out = add_one(jnp.ones((8, 128)))"
_CHECK = "bool((out == 2).all())"
_GPU_HOME = "jax._src.pallas.mosaic_gpu.interpret.params"

# A notebook's state: a counter, a PRNG key and a data load run before the error. The fix
# runs again only the statement that built the kernel and the failing statement on.
_STATEFUL_SETUP = ("step = 0\nkey = jax.random.key(0)\nLOADS = 0",
                   "LOADS += 1\n" + _GRID)
_STATEFUL_CALL = ("step += 1\nkey, sub = jax.random.split(key)\n"
                  "x = jax.random.normal(sub, (8, 128))\nout = add_one_kernel(x)")
_STATEFUL_CHECK = ("step == 1 and LOADS == 1 and bool(jnp.allclose(out, x + 1)) and "
                   "bool((jax.random.key_data(key) == jax.random.key_data("
                   "jax.random.split(jax.random.key(0))[0])).all())")

# The error from inside a loop, in its first iteration: the fix resumes that iteration at the
# failing line, so each item is seen once and every output is there.
_LOOP_CALL = ("seen, outs = [], []\nfor i in range(3):\n    seen.append(i)\n"
              "    outs.append(add_one_kernel(jnp.full((8, 128), float(i))))")
_LOOP_CHECK = "seen == [0, 1, 2] and [float(o[0, 0]) for o in outs] == [1.0, 2.0, 3.0]"
# Over an iterator it cannot resume: what ran of the loop runs again, and the outcome says
# so; the numbers of the items that reach the kernel are still right.
_ITERATOR_CALL = ("items, seen = iter([0, 1, 2]), []\nfor i in items:\n    seen.append(i)\n"
                  "    out = add_one_kernel(jnp.full((8, 128), float(i)))")

# After "from now on", a kernel built later (as a tutorial's next cell does) runs too.
_LATER_KERNEL = ("bool((pl.pallas_call(add_one, out_shape=jax.ShapeDtypeStruct((4, 128), "
                 "jnp.float32))(jnp.zeros((4, 128))) == 1).all())")

# A tutorial-sized TPU matmul: 4,096 grid steps in TPU interpret mode, minutes on a CPU
# (tests/test_long_fix.py runs it too).
BIG_MATMUL = '''\
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

def matmul_body(x_ref, y_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(2) == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)
    acc_ref[...] += x_ref[...] @ y_ref[...]
    @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)
    def _():
        o_ref[...] = acc_ref[...]

def matmul(x, y, block=128):
    n = x.shape[0]
    return pl.pallas_call(
        matmul_body,
        out_shape=jax.ShapeDtypeStruct((n, n), jnp.float32),
        grid=(n // block, n // block, n // block),
        in_specs=[pl.BlockSpec((block, block), lambda i, j, k: (i, k)),
                  pl.BlockSpec((block, block), lambda i, j, k: (k, j))],
        out_specs=pl.BlockSpec((block, block), lambda i, j, k: (i, j)),
        scratch_shapes=[pltpu.VMEM((block, block), jnp.float32)],
    )(x, y)
'''
BIG_CALL = ("x = jax.random.normal(jax.random.key(0), (2048, 2048))\n"
             "out = matmul(x, x)")

_GRID_SETUP = (_GRID,)

EXAMPLES = (
    Example(setup=_GRID_SETUP, failing=_CALL, fix="Re-run in interpret mode", check=_CHECK),
    Example(setup=(BIG_MATMUL,), failing=BIG_CALL, fix="Check on a smaller input",
            check="x.shape == (256, 256) and bool(jnp.allclose(out, x @ x, atol=1e-3, rtol=1e-3))"),
    Example(setup=_GRID_SETUP, failing=_CALL, fix="Interpret mode from now on",
            check=f"{_CHECK} and {_LATER_KERNEL}"),
    Example(setup=_GRID_SETUP, failing=_LOOP_CALL, fix="Interpret mode from now on",
            check=_LOOP_CHECK),
    Example(setup=_GRID_SETUP, failing=_ITERATOR_CALL, fix="Re-run in interpret mode",
            check="seen == [0, 1, 2] and float(out[0, 0]) == 3.0"),
    Example(setup=_STATEFUL_SETUP, failing=_STATEFUL_CALL, fix="Re-run in interpret mode",
            check=_STATEFUL_CHECK),
    edited(_GRID, _CALL, "Pass interpret=True", _CHECK,
           ("out_shape=jax", "interpret=True, out_shape=jax")),
    Example(setup=(_CORE_MAP,), failing=_CALL_MESH, fix="Re-run in TPU interpret mode",
            check=_CHECK),
    edited(_MESH_KERNEL, _CALL_MESH, "Pass interpret=pltpu.InterpretParams()", _CHECK,
           ("mesh=mesh)", "mesh=mesh, interpret=pltpu.InterpretParams())")),
    Example(setup=(_GPU_KERNEL,), failing=_CALL_MESH, fix="Re-run in GPU interpret mode",
            check=_CHECK, requires=(_GPU_HOME,),
            fixed=(f"from {_GPU_HOME} import InterpretGPUParams\n"
                   + edit(_GPU_KERNEL, (f"out_type={_SHAPE})",
                                        f"out_type={_SHAPE}, interpret=InterpretGPUParams())")),
                   _CALL_MESH)),
)

WHY = _entry.prose("""
Pallas turns a kernel into machine code for a TPU (Mosaic) or a GPU (Mosaic GPU, Triton);
the CPU backend has no kernel compiler. On a CPU a kernel can only be interpreted: its body
runs as ordinary JAX operations, one program at a time, with the chip's memory and copies
simulated. There are three interpreters and each fits different kernels: interpret=True for
plain grid kernels, pltpu.InterpretParams() for TPU kernels (TPU meshes, core_map, DMAs,
semaphores) and GPU interpret params for Mosaic GPU kernels.
""")

NO_PLAIN_INTERPRET = (
    "interpret=True is not offered: a TPU mesh kernel needs TPU interpret mode, and for "
    "core_map over a TPU mesh interpret=True runs without an error and returns zeros (the "
    "output as it started)."
)


def _same_line(a: Location, b: Location) -> bool:
    if a.cell is not None and b.cell is not None:  # a cell's filename varies with the run
        return (a.cell, a.lineno) == (b.cell, b.lineno)
    return (a.filename, a.lineno) == (b.filename, b.lineno)


def _kind_sentence(choice: _interpreter_choice.Choice) -> str:
    reasons = " and ".join(choice.reasons[:2])
    if choice.mode is None:
        return (f"It mixes TPU and GPU features ({reasons}), so no interpreter can run it: "
                "use one family's memory spaces and mesh.")
    info = interpret_modes.describe(choice.mode)
    seen = " (read from your code: JAX's own view of the kernel was not available)" if (
        choice.from_source) else ""
    return f"It needs {info.name} (interpret={info.code}) because {reasons}{seen}."


MATCH = Match(MESSAGE)


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    situation = interpret_fixes.analyse(ctx)
    choice = _interpreter_choice.choose(ctx, situation.plan)
    where = situation.where
    call_site = ctx.call_site()
    if call_site is not None and where is not None and _same_line(call_site, where):
        # A helper that builds the kernel and calls it on one line: the user's call is the
        # failing cell's line that reached the helper.
        call_site = ctx.failing_cell()
    if call_site is not None and where is not None and _same_line(call_site, where):
        call_site = None
    at = f" built at {where.label}" if where is not None else ""
    reached = (f", called from {call_site.label}," if call_site is not None and where is not None
               else "")
    platforms = interpret_modes.initialized_platforms()
    cpu_runtime = not interpret_modes.accelerators(platforms)
    explanation = (
        f"The Pallas kernel{at}{reached} was compiled for the CPU, and Pallas compiles kernels "
        f"only for TPUs and GPUs: on a CPU it can only interpret them. {_kind_sentence(choice)} "
        + interpret_modes.backend_sentence(platforms)
    )
    notes: list[str] = []
    fixes: tuple[Fix, ...] = ()
    if choice.mode is not None:
        reason = interpret_modes.params_unavailable(choice.mode)
        if reason is not None:
            name = interpret_modes.describe(choice.mode).name
            explanation += f" jax_nbhelp cannot offer {name}: {reason}."
        lasting = interpret_fixes.runtime_fix(ctx, situation, choice.mode, from_now_on=True)
        rewrite = interpret_fixes.rewrite_fix(ctx, situation, choice.mode)
        once = interpret_fixes.runtime_fix(ctx, situation, choice.mode)
        # Where every kernel must be interpreted, the first click should carry to the next
        # cell that builds one (a tutorial otherwise fails again at each). A runtime with a
        # TPU or GPU: the kernels meant for it must stay compiled, so the switch is the last
        # resort and the code's own interpret= comes first.
        fixes = (lasting, rewrite, once) if cpu_runtime else (rewrite, once, lasting)
        smaller = interpret_fixes.smaller_input_fix(ctx, situation, choice.mode)
        if smaller is not None:
            fixes += (smaller,)
        if choice.mode == "tpu" and ctx.kernel is not None and ctx.kernel.mesh_family == "tpu":
            notes.append(NO_PLAIN_INTERPRET)
        cost = interpret_cost.estimate(ctx.kernel, choice.mode, ctx.session.speed)
        if cost is not None and cost.long:
            notes.append(interpret_cost.long_note(cost))
    if situation.plan.reruns:
        cells = ", ".join(cell_label(n) for n in situation.plan.reruns)
        notes.append(
            f"The interpret switch is read when a kernel is built, and {cells} built this one "
            "before this cell ran: re-running only this cell under the switch would change "
            "nothing."
        )
    imported = [name for name in situation.plan.imported if name in ctx.value_types]
    library = any(f.label.startswith("Pass interpret=") and f.unavailable is None
                  for f in fixes)  # passed at the user's call of a library op
    if imported and not situation.plan.sites and not library:
        notes.append(
            f"If the kernel comes from a module of your own ({', '.join(imported)}), "
            "re-running cells cannot rebuild it: pass interpret= where that module builds "
            "it. A library's kernels (JAX's own ops) are what the interpret mode fixes are for."
        )
    return _entry.diagnosis(ctx, __name__, explanation, location=where, call_site=call_site,
                            fixes=fixes, notes=notes)
