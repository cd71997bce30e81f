"""The flagship error at run time: a ``@jax.jit`` helper with a collective ``run_scoped``,
called inside a kernel that runs in GPU interpret mode.

The GPU kernel interpreter does not step into a jitted call: it compiles it with XLA from a
host callback while the kernel runs. XLA then refuses the collective run_scoped (the flagship
message), and the callback's failure reaches the user as
``JaxRuntimeError: INTERNAL: CpuCallback error calling callback: ...`` with that message at
its end and no line of the user's code in any traceback. The helper is found in the cells.
"""

from __future__ import annotations

from dataclasses import replace

from jax_nbhelp.catalog import _entry
from jax_nbhelp.catalog._example import (
    GPU_PARAMS_IMPORT,
    GPU_PRELUDE,
    NEEDS_GPU_INTERPRETER,
    Example,
    edit,
    scoped_helper,
)
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.fix.fix_builders import rewrite_fix
from jax_nbhelp.jaxapi import capabilities

CODE = "JNH106"
TITLE = "Collective run_scoped in a jax.jit helper inside an interpreted GPU kernel"
MESSAGE = "run_scoped lowering outside of Pallas does not support collective_axes"
WRAPPER = "CpuCallback error"

_HELPER = scoped_helper("doubled_plus_one", "plgpu.SMEM", "wg", prelude=GPU_PRELUDE,
                        jit=True)

_KERNEL = GPU_PARAMS_IMPORT + '''
def kernel_body(x_ref, o_ref):
    o_ref[...] = doubled_plus_one(x_ref[...])

kernel = plgpu.kernel(kernel_body, jax.ShapeDtypeStruct((8, 128), jnp.float32),
                      num_threads=2, thread_name="wg", interpret=InterpretGPUParams())
'''

_CALL = "out = kernel(jnp.ones((8, 128)))"

EXAMPLES = (
    Example(setup=(_HELPER, _KERNEL), failing=_CALL, fix="Call it without jax.jit",
            check="bool((out == 3).all())",
            fixed=(edit(_HELPER, ("@jax.jit\n", "")), _KERNEL, _CALL),
            requires=NEEDS_GPU_INTERPRETER),
)

WHY = _entry.prose("""
Inside a kernel, jax.jit only draws a call boundary. GPU interpret mode does not step into
such a call: it compiles it with XLA, outside the kernel, while the kernel runs. XLA has no
threads to share the allocation with and refuses collective_axes; the failure comes back
from the interpreter's host callback as a JaxRuntimeError.
""")


def _is_runtime_wrapper(ctx: ErrorContext) -> bool:
    link = ctx.find(MESSAGE)
    return link is not None and (link.is_a("JaxRuntimeError") or WRAPPER in link.message)


def _fix(ctx: ErrorContext, name: str, location: Location) -> Fix:
    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.drop_jit_decorator import remove_jit_decorator

        return remove_jit_decorator(source, name)

    fix = rewrite_fix(
        ctx,
        location,
        transform,
        label="Call it without jax.jit",
        summary=(f"Remove the jax.jit decorator from {name}, re-define it, then resume the "
                 "failing cell."),
        safety=(
            "Same values: inside a kernel jax.jit changes nothing but the call boundary, and "
            f"without it {name} is traced into the kernel, where the threads share its "
            "allocation as they do on a GPU. If you also call it outside a kernel, write "
            f"jax.jit({name})(...) there."
        ),
        safe=True,
    )
    # JAX asks for the GPU interpreter's state to be reset after a kernel failed in it.
    return replace(fix, runtime=capabilities.fresh_gpu_interpreter)


TRIGGERS = (MESSAGE,)


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    if not _is_runtime_wrapper(ctx):
        return None
    from jax_nbhelp.diagnosis.cell_search import jitted_collective_helpers

    helpers = jitted_collective_helpers()
    failing = ctx.failing_cell()
    reached = f" (the kernel called at {failing.label})" if failing is not None else ""
    notes: list[str] = []
    fixes: tuple[Fix, ...] = ()
    location: Location | None = None
    if len(helpers) == 1:
        (helper,) = helpers
        location = helper.location
        explanation = (
            f"A kernel running in GPU interpret mode{reached} called {helper.name}, a "
            f"jax.jit function whose pl.run_scoped(..., collective_axes=...) is at "
            f"{location.label}. The interpreter compiled that jitted call with XLA, outside "
            "the kernel, and XLA refused the collective allocation. JAX's tracebacks name "
            "none of your lines here; jax_nbhelp found the helper in your cells."
        )
        fixes = (_fix(ctx, helper.name, location),)
    else:
        explanation = (
            f"A kernel running in GPU interpret mode{reached} called a jax.jit function that "
            "holds a pl.run_scoped(..., collective_axes=...). The interpreter compiled that "
            "jitted call with XLA, outside the kernel, and XLA refused the collective "
            "allocation. JAX's tracebacks name none of your lines here."
        )
        if helpers:
            names = ", ".join(f"{h.name} ({h.location.label})" for h in helpers)
            notes.append(
                f"Candidates in your cells: {names}. Remove @jax.jit from the one the kernel "
                "calls."
            )
        else:
            notes.append(
                "jax_nbhelp found no @jax.jit function with collective_axes in this "
                "session's cells (it may live in a module). Remove jax.jit from the helper "
                "the kernel calls, or call its unwrapped function inside the kernel."
            )
    notes.append(
        "Keep collective_axes: inside a plgpu.kernel with several threads the threads must "
        "share the allocation."
    )
    return _entry.diagnosis(ctx, __name__, explanation, location=location, call_site=failing,
                            fixes=fixes, notes=notes,
                            error=f"{ctx.top.type_name}: {ctx.top.message.splitlines()[0]}")
