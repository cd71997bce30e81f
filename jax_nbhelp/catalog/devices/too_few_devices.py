"""Sharded code that needs more devices than the runtime has (a CPU runtime has one).

What JAX raises (measured on jax 0.9.2 and 0.10.2, one CPU device):

- ``jax.make_mesh((2,), ("x",))``: ``ValueError: Number of devices 1 must be >= the product
  of mesh_shape (2,)``;
- ``mesh_utils.create_device_mesh((4, 2))``: ``ValueError: Number of devices 1 must equal
  the product of mesh_shape (4, 2)``;
- ``jax.pmap(f)(x)`` over more entries than devices: pmap (built on shard_map) gives each
  device a block of the mapped axis and squeezes it, so it fails with ``ValueError: cannot
  select an axis to squeeze out which has size not equal to one, got shape=(2,) and
  dimensions=(0,)``.

- the notebook's own guard, ``assert jax.device_count() > 1, "Please run this notebook with
  more than one device"`` (JAX's distributed Pallas docs notebooks start so): an
  ``AssertionError`` with the notebook's message. Read by ``diagnosis/device_guard``, which
  also lets it past provenance; a guard that insists on TPU devices is explained (no CPU
  set-up runs it), and any other assert stays silent.

``Mesh(np.array(jax.devices()).reshape(2, 1), ...)`` fails in NumPy's reshape, not in JAX,
and ``jax.devices()[1]`` in Python's list indexing: jax_nbhelp does not claim those.
On a CPU, JAX can split the processor into N simulated devices, but only when it starts its
backend, so the kernel must restart: the diagnosis gives the first cell and no fix.
"""

from __future__ import annotations

import ast
import math
import re

from jax_nbhelp.catalog import _entry
from jax_nbhelp.catalog._example import NO_FIX, Example
from jax_nbhelp.core.model import Diagnosis
from jax_nbhelp.diagnosis import device_guard
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.jaxapi import interpret_modes, jax_probe

CODE = "JNH207"
TITLE = "Sharded code needs more devices than this runtime has"

MESH_MESSAGE = "Number of devices "
SQUEEZE_MESSAGE = "cannot select an axis to squeeze out which has size not equal to one"

_MESH = re.compile(r"^Number of devices (?P<have>\d+) must (?P<rule>be >=|equal) the product "
                   r"of mesh_shape (?P<shape>\([\d, ]*\))")
_SQUEEZE = re.compile(re.escape(SQUEEZE_MESSAGE)
                      + r", got shape=(?P<shape>\([\d, ]*\)) and dimensions=\((?P<axis>\d+),?\)")
_MESH_MAKERS = {"make_mesh": "jax.make_mesh", "create_device_mesh": "mesh_utils.create_device_mesh"}

EXAMPLES = (
    Example(
        setup=(),
        failing='mesh = jax.make_mesh((2,), ("x",))',
        fix=NO_FIX,
        check="mesh.devices.size == jax.device_count()",
        fixed=('import jax\nmesh = jax.make_mesh((jax.device_count(),), ("x",))',),
    ),
    Example(
        setup=("from jax.experimental import mesh_utils",),
        failing="devices = mesh_utils.create_device_mesh((4, 2))",
        fix=NO_FIX,
        check="devices.shape == (jax.device_count(), 1)",
        fixed=("import jax\nfrom jax.experimental import mesh_utils\n"
               "devices = mesh_utils.create_device_mesh((jax.device_count(), 1))",),
    ),
    Example(
        setup=(),
        failing="out = jax.pmap(lambda x: x * 2)(jnp.arange(2.0))",
        fix=NO_FIX,
        check="out.tolist() == [2.0 * i for i in range(jax.device_count())]",
        fixed=("import jax, jax.numpy as jnp\n"
               "out = jax.pmap(lambda x: x * 2)(jnp.arange(float(jax.device_count())))",),
    ),
    Example(
        setup=(),
        failing=('assert jax.device_count() > 1, '
                 '"Please run this notebook with more than one device"'),
        fix=NO_FIX,
        check="mesh.devices.size == jax.device_count()",
        fixed=('import jax\nmesh = jax.make_mesh((jax.device_count(),), ("x",))',),
    ),
)

WHY = _entry.prose("""
Sharded code puts one piece of the work on each device: a mesh needs one device per
position, and pmap one per entry of the mapped axis. JAX counts its devices once, when it
starts its backend at the first JAX operation of the process, and the count is fixed from
then on. A CPU runtime has a single CPU device, unless JAX is told before that start to
split the CPU into simulated devices; they share the same cores, so they test that sharded
code is correct, not that it is fast.
""")


def first_cell(devices: int, *, config_option: bool, cpu_only: bool = False) -> str:
    """The first cell of a restarted kernel that gives JAX ``devices`` CPU devices, on one
    line (notes are shown as running text). ``config_option``: this JAX has the
    ``jax_num_cpu_devices`` option; otherwise the XLA flag is set before JAX is imported.
    ``cpu_only``: the runtime's default backend is an accelerator, so JAX is told to use
    the CPU."""
    if config_option:
        parts = ["import jax"]
        if cpu_only:
            parts.append('jax.config.update("jax_platforms", "cpu")')
        parts.append(f'jax.config.update("jax_num_cpu_devices", {devices})')
    else:
        parts = ["import os"]
        if cpu_only:
            parts.append('os.environ["JAX_PLATFORMS"] = "cpu"')
        parts += [f'os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count={devices}"',
                  "import jax"]
    return "; ".join(parts)


def has_num_cpu_devices_option() -> bool:
    """Whether this JAX has ``jax.config.jax_num_cpu_devices`` (a probe; never raises)."""
    config = jax_probe.attribute("jax", "config")
    try:
        return config is not None and hasattr(config, "jax_num_cpu_devices")
    except Exception:
        return False


def _device_count() -> int | None:
    """How many devices the default backend has, read only when JAX has already started it."""
    if interpret_modes.default_platform() is None:
        return None
    count = jax_probe.attribute("jax", "device_count")
    try:
        return int(count()) if count is not None else None
    except Exception:
        return None


def _shape(text: str) -> tuple[int, ...] | None:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    if isinstance(value, tuple) and all(isinstance(n, int) for n in value):
        return value
    return None


def _squeezed_by_pmap(link: Link) -> bool:
    """Whether the failing squeeze is pmap's own (it squeezes each device's block)."""
    paths = [frame.filename.replace("\\", "/") for frame in link.frames]
    for index, frame in enumerate(link.frames):
        if (frame.function == "squeeze" and paths[index].endswith("/lax/lax.py") and index > 0
                and paths[index - 1].endswith("/pmap.py")):
            return True
    return False


def _asked(ctx: ErrorContext, count: int | None) -> tuple[Link, int, int, str] | None:
    """The link, devices needed, devices present, and what asked, when it is this error."""
    for link in ctx.chain:
        if not link.is_a("ValueError"):
            continue
        mesh = _MESH.match(link.message)
        if mesh is not None:
            shape = _shape(mesh["shape"])
            if shape is None:
                continue
            needed, have = math.prod(shape), count if count is not None else int(mesh["have"])
            if needed <= have:
                return None  # devices were passed explicitly, or there are too many
            maker = next((_MESH_MAKERS[f.function] for f in reversed(link.frames)
                          if f.function in _MESH_MAKERS), "JAX")
            return link, needed, have, (f"asks {maker} for a device mesh of shape {shape}, "
                                        f"which needs {needed} devices, one per position")
        squeeze = _SQUEEZE.match(link.message)
        if squeeze is not None and count is not None and _squeezed_by_pmap(link):
            block = _shape(squeeze["shape"])
            axis = int(squeeze["axis"])
            if block is None or axis >= len(block):
                continue
            needed = block[axis] * count
            return link, needed, count, (
                f"runs jax.pmap over an axis of {needed} entries, which needs {needed} devices, "
                f"one per entry (JAX's message about squeeze is pmap finding a block of "
                f"{block[axis]} entries where each device should get 1)")
    return None


TRIGGERS = (MESH_MESSAGE, SQUEEZE_MESSAGE, "AssertionError")


def _restart_notes(needed: int, platform: str) -> tuple[str, ...]:
    kind = interpret_modes.platform_name(platform)
    cpu_only = platform != "cpu"
    cell = first_cell(needed, config_option=has_num_cpu_devices_option(), cpu_only=cpu_only)
    if cpu_only:
        restart = (f"On a runtime with {needed} {kind}s the code runs unchanged. To simulate "
                   f"{needed} devices on this machine's CPU instead (slowly, for testing), "
                   "restart the kernel")
    else:
        restart = f"To simulate {needed} CPU devices, restart the kernel"
    restart += (" (Colab: Runtime > Restart session; Jupyter: Kernel > Restart Kernel) and run "
                "this as its very first cell, before any JAX code, then the notebook again:")
    return (
        restart,
        cell,
        "jax_nbhelp has no fix to apply in this kernel: the device count is fixed once JAX "
        "has started its backend (setting jax_num_cpu_devices now raises a RuntimeError), and "
        "a restart loses this session's variables.",
    )


def _guard(ctx: ErrorContext) -> Diagnosis | None:
    """The notebook's own ``assert`` on its devices (see the module's docstring)."""
    top = ctx.top
    if top.type_name != "AssertionError" or not top.frames or top.frames[-1].location is None:
        return None  # raised inside a library, not by the user's own assert
    location = top.frames[-1].location
    guard = device_guard.read(location)
    if guard is None:
        return None
    have = _device_count()
    platform = interpret_modes.default_platform() or "cpu"
    kind = interpret_modes.platform_name(platform)
    present = (f"this runtime has {have} {kind} {'device' if have == 1 else 'devices'}"
               if have is not None else "this runtime has too few")
    said = f" ({top.message.strip()!r})" if top.message.strip() else ""
    line = f"`assert {guard.test}`{_entry.at(location)}"
    if guard.tpu:
        explanation = (f"{line} is the code's own check that it runs on TPU devices{said}, "
                       f"and {present}.")
        notes: tuple[str, ...] = (
            "Run it on a TPU runtime (Colab: Runtime > Change runtime type > a TPU), where it "
            "runs unchanged; no set-up of a CPU runtime gives it TPU devices.",
            "To try its Pallas kernels on this CPU anyway (slowly, for testing), take the "
            "guard out and run `%jax_nbhelp interpret on` first: every kernel is then "
            "interpreted in the interpreter of its family. Code that needs several TPU chips "
            "also needs simulated CPU devices (the first cell JNH207 gives for a mesh).",
        )
        return _entry.diagnosis(ctx, __name__, explanation, location=location, fixes=(),
                                notes=notes, error=top.summary or "AssertionError")
    needed = guard.needed if guard.needed is not None else max(2, (have or 1) + 1)
    explanation = (f"{line} is the code's own check that it has at least {needed} devices"
                   f"{said}, and {present}. Sharded code after it puts one piece of the work "
                   "on each device.")
    return _entry.diagnosis(ctx, __name__, explanation, location=location, fixes=(),
                            notes=_restart_notes(needed, platform),
                            error=top.summary or "AssertionError")


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    if ctx.top.type_name == "AssertionError":
        return _guard(ctx)
    if not (ctx.mentions(MESH_MESSAGE) or ctx.mentions(SQUEEZE_MESSAGE)):
        return None
    found = _asked(ctx, _device_count())
    if found is None:
        return None
    link, needed, have, asked = found
    platform = interpret_modes.default_platform() or "cpu"
    kind = interpret_modes.platform_name(platform)
    location = ctx.deepest_user_location()
    failing = ctx.failing_cell()
    line = f"`{location.line.strip()}`" if location is not None and location.line else "The code"
    where = _entry.at(location)
    plural = "device" if have == 1 else "devices"
    explanation = (
        f"{line}{where} {asked}. This runtime has {have}: jax.devices() lists {have} {kind} "
        f"{plural}."
    )
    notes = (
        *_restart_notes(needed, platform),
        "Or size the code to the devices present: jax.make_mesh((jax.device_count(),), "
        "(\"x\",)), or pmap over jax.device_count() entries, runs on one device and on many.",
    )
    return _entry.diagnosis(ctx, __name__, explanation, location=location, call_site=failing,
                            fixes=(), notes=notes, error=link.summary)
