"""What the GPU-interpret collective-axes diagnoses (JNH108 to JNH110) share.

GPU interpret mode (``plgpu.kernel(..., interpret=InterpretGPUParams())``) checks every
``run_scoped`` against the kernel's axes: the cluster axes (``cluster_names=``), then the
thread axis (``thread_name=``, or an unnamed placeholder when the kernel has none). Its
messages name the axes (``Collective axis `x` not found among axes `['wg']```) or not at all;
the thread axis is then read from ``thread_name=`` in the session's cells.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from jax_nbhelp.core.model import Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.fix.fix_builders import rewrite_fix
from jax_nbhelp.jaxapi import capabilities

# str() of the placeholder JAX uses for a kernel without thread_name=.
PLACEHOLDER = re.compile(r"<object object at 0x[0-9a-fA-F]+>")
_NOT_FOUND = re.compile(r"Collective axis `(?P<axis>.*?)` not found among axes `(?P<axes>\[.*\])`")
_THREAD_NAME = re.compile(r"""\bthread_name\s*=\s*(?:"(\w+)"|'(\w+)')""")


def not_found(message: str) -> tuple[str, str] | None:
    """(the axis asked for, the kernel's axes as JAX printed them), from the message."""
    match = _NOT_FOUND.search(message)
    return (match["axis"], match["axes"]) if match else None


def named_axes(axes_text: str) -> tuple[str, ...] | None:
    """The kernel's axes when every one is named (a string); None when one is JAX's
    placeholder for an unnamed thread axis, or the text cannot be read."""
    if PLACEHOLDER.search(axes_text):
        return None
    try:
        value = ast.literal_eval(axes_text)
    except (ValueError, SyntaxError):
        return None
    if isinstance(value, list) and all(isinstance(axis, str) for axis in value):
        return tuple(value)
    return None


def thread_names_in_cells(ctx: ErrorContext) -> tuple[str, ...]:
    """Every distinct literal ``thread_name=`` in the session's cells, in order of use."""
    found: list[str] = []
    for _, source in sorted(ctx.cell_sources.items()):
        for match in _THREAD_NAME.finditer(source):
            name = match.group(1) or match.group(2)
            if name not in found:
                found.append(name)
    return tuple(found)


FRESH_NOTE = (
    "A kernel built from the old body (add_one_gpu = plgpu.kernel(...)) keeps it: the fix "
    "runs such statements again, and the preview names them. A kernel built some other way "
    "(in a module, or inside a loop) must be built again by hand."
)


def set_thread_axis_fix(ctx: ErrorContext, location: Location | None, axis: str, *,
                        label: str, summary: str, safety: str) -> Fix:
    """Set ``collective_axes=axis`` on the run_scoped call at ``location``, then re-run."""

    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.set_collective_axes import set_collective_axes

        assert location is not None
        return set_collective_axes(source, location.lineno, axis)

    fix = rewrite_fix(ctx, location, transform, label=label, summary=summary, safety=safety,
                      safe=True)
    # JAX asks for the GPU interpreter's state to be reset after a kernel failed in it.
    return replace(fix, runtime=capabilities.fresh_gpu_interpreter)
