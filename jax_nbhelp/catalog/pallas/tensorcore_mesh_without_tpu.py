"""``pltpu.create_tensorcore_mesh`` called where the default device is not a TPU.

Without ``num_cores`` it reads ``num_cores`` from the first default device; only TPU devices
have it, so on a CPU runtime the call fails with an AttributeError whose message is empty.
"""

from __future__ import annotations

from jax_nbhelp.catalog import _entry
from jax_nbhelp.catalog._example import Example
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.fix.fix_builders import rewrite_fix
from jax_nbhelp.jaxapi import interpret_modes

CODE = "JNH202"
TITLE = "TensorCore mesh created on a runtime without a TPU"
FUNCTION = "create_tensorcore_mesh"

_IMPORTS = """\
import jax
from jax.experimental.pallas import tpu as pltpu
"""

EXAMPLES = (
    Example(
        setup=(),
        failing='mesh = pltpu.create_tensorcore_mesh("core")',
        fix="Pass num_cores=1",
        check='dict(mesh.shape) == {"core": 1}',
        fixed=(_IMPORTS + 'mesh = pltpu.create_tensorcore_mesh("core", num_cores=1)',),
    ),
)

WHY = _entry.prose("""
A TensorCore mesh has one entry per TensorCore of a TPU chip. Without num_cores,
create_tensorcore_mesh asks the first default device (jax.devices()[0]) how many it has, and
only TPU devices can answer: other devices have no num_cores attribute, and the
AttributeError they raise carries no message.
""")

CORES_NOTE = (
    "On a TPU, the mesh gets the device's own number of TensorCores, which is 2 on megacore "
    "chips (v4, v5p). A kernel that sizes its work from the mesh computes the same on a "
    "one-core mesh; one that assumes 2 cores does not, so pass num_cores=2 to simulate such a "
    "chip."
)


def _is_own(ctx: ErrorContext) -> bool:
    top = ctx.top
    if not top.is_a("AttributeError"):
        return False
    if top.message and "num_cores" not in top.message:
        return False
    frames = top.frames
    if frames and frames[-1].function == FUNCTION:
        return True
    location = ctx.deepest_user_location()
    return location is not None and FUNCTION in location.line


TRIGGERS = ("AttributeError",)


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    if not _is_own(ctx):
        return None
    location = ctx.deepest_user_location()
    failing = ctx.failing_cell()
    platform = interpret_modes.default_platform()
    device = f"a {interpret_modes.platform_name(platform)}" if platform else "not a TPU"
    where = _entry.at(location)
    explanation = (
        f"pltpu.create_tensorcore_mesh(...){where} was not told how many TensorCores to use, "
        f"so it asked the default device, which is {device} device and has no TensorCores. "
        "The empty AttributeError is that device saying it has no num_cores. On a CPU, pass "
        "num_cores=1 and run the kernels over this mesh in TPU interpret mode "
        "(interpret=pltpu.InterpretParams())."
    )
    accelerators = interpret_modes.accelerators(interpret_modes.initialized_platforms())
    notes = [CORES_NOTE]
    if "TPU" in accelerators:
        notes.append(
            "This runtime has a TPU, but the default device is not one (JAX_PLATFORMS or "
            "jax.default_device chose another): pass devices=jax.devices('tpu')[:1] instead "
            "to build the mesh for the TPU."
        )

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.num_cores import add_num_cores

        assert location is not None
        return add_num_cores(source, location.lineno)

    fix = rewrite_fix(
        ctx,
        location,
        transform,
        label="Pass num_cores=1",
        summary="Build a one-core mesh: give create_tensorcore_mesh num_cores=1, then re-run.",
        safety=(
            "One TensorCore: kernels that size their work from the mesh compute the same "
            "numbers; see the note on 2-core chips."
        ),
        safe=False,
    )
    return _entry.diagnosis(ctx, __name__, explanation, location=location, call_site=failing,
                            fixes=(fix,), notes=notes,
                            error=ctx.top.summary + ("" if ctx.top.message
                                                     else " (an empty message)"))
