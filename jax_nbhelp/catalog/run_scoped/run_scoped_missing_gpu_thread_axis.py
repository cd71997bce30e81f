"""A ``run_scoped`` without the thread axis in a Mosaic GPU kernel with threads.

In ``plgpu.kernel(..., num_threads=N, thread_name=AXIS)`` every scoped allocation (shared
memory, barriers) is shared by the kernel's threads. GPU interpret mode raises ``Scoped
allocation must have the thread axis in its collective axes.`` when a ``run_scoped`` leaves
``collective_axes`` out (or names only other axes). The message names no axis: the thread
axis is read from ``thread_name=`` in the session's cells, and the fix is offered only when
exactly one name is written there.
"""

from __future__ import annotations

from jax_nbhelp.catalog import _entry
from jax_nbhelp.catalog import _gpu_thread_axis as axes
from jax_nbhelp.catalog import _run_scoped_family as family
from jax_nbhelp.catalog._example import Example
from jax_nbhelp.catalog.run_scoped.run_scoped_collective_axis_not_in_gpu_kernel import (
    _CALL,
    _CHECK,
    _REQUIRES,
    _THREADS,
)
from jax_nbhelp.core.model import Diagnosis, Fix
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match

CODE = "JNH109"
TITLE = "Scoped allocation in a GPU kernel with threads is not collective"
MESSAGE = "Scoped allocation must have the thread axis in its collective axes."

_MISSING = _THREADS.replace(', collective_axes="core"', "")
_FIXED = _THREADS.replace('collective_axes="core"', 'collective_axes="wg"')

EXAMPLES = (Example(setup=(_MISSING,), failing=_CALL, fix="Share it along the thread axis 'wg'",
                    check=_CHECK, fixed=(_FIXED, _CALL), requires=_REQUIRES),)

WHY = _entry.prose("""
Mosaic GPU allocates a kernel's scoped memory once per block, and all the threads of the
block (plgpu.kernel's num_threads=) use that one allocation. run_scoped must say so with
collective_axes=<thread_name>; GPU interpret mode refuses an allocation that pretends each
thread has its own.
""")


MATCH = Match(MESSAGE)


def diagnose(ctx: ErrorContext, link: Link) -> Diagnosis | None:
    location = family.operation_location(ctx)
    failing = ctx.failing_cell()
    where = _entry.at(location)
    names = axes.thread_names_in_cells(ctx)
    fixes: tuple[Fix, ...] = ()
    notes: list[str] = []
    if len(names) == 1:
        (thread,) = names
        explanation = (
            f"The pl.run_scoped(...){where} runs in a GPU kernel with threads "
            f"(thread_name=\"{thread}\"), but does not share its allocation along the "
            "thread axis."
        )
        fixes = (
            axes.set_thread_axis_fix(
                ctx,
                location,
                thread,
                label=f"Share it along the thread axis '{thread}'",
                summary=f"Set collective_axes=\"{thread}\" on the run_scoped call, re-define "
                "the code that holds it, then resume the failing cell.",
                safety=(
                    "Same values as on a GPU: Mosaic GPU gives the threads of a block one "
                    "allocation whatever run_scoped says; collective_axes only states it. Do "
                    "not drop num_threads instead: that changes what the kernel computes."
                ),
            ),
        )
        notes.append(axes.FRESH_NOTE)
    else:
        found = ", ".join(f'"{name}"' for name in names)
        explanation = (
            f"The pl.run_scoped(...){where} runs in a GPU kernel with threads, but does not "
            "share its allocation along the kernel's thread axis. Add "
            "collective_axes=<the kernel's thread_name> to it."
        )
        notes.append(
            f"Your cells pass several thread names ({found}); jax_nbhelp cannot tell which "
            "kernel this is."
            if names
            else "jax_nbhelp found no literal thread_name= in this session's cells, so it "
            "cannot tell the axis name."
        )
    return _entry.diagnosis(ctx, __name__, explanation, location=location, call_site=failing,
                            fixes=fixes, notes=notes, error=link.summary)
