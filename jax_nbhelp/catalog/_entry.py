"""What every catalog entry's diagnosis shares, so an entry states only what is its own.

An entry's ``diagnose`` decides the explanation, the location, the fixes and the notes; its
code, title and why come from the entry module itself, its name from the module's file
name, the error line from the exception, and a "reached from" line is kept only when it
is another line than the one that raised.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.catalog_index import name_of
from jax_nbhelp.diagnosis.context import ErrorContext


def diagnosis(
    ctx: ErrorContext,
    entry: str,
    explanation: str,
    *,
    location: Location | None,
    call_site: Location | None = None,
    fixes: Iterable[Fix] = (),
    notes: Iterable[str] = (),
    why: str | None = None,
    error: str | None = None,
) -> Diagnosis:
    """The diagnosis of the entry module named ``entry`` (its ``__name__``).

    ``why`` defaults to the entry's ``WHY`` and ``error`` to the exception's summary line;
    ``call_site`` is dropped where it is ``location`` itself.
    """
    module = sys.modules[entry]
    return Diagnosis(
        code=module.CODE,
        name=name_of(entry),
        title=module.TITLE,
        explanation=explanation,
        why=module.WHY if why is None else why,
        error=ctx.top.summary if error is None else error,
        location=location,
        call_site=call_site if call_site != location else None,
        fixes=tuple(fixes),
        notes=tuple(notes),
        # raised in a kernel, or by an entry of the kernel families (run_scoped is Pallas's
        # own primitive: its card is about a kernel even where it ran outside one)
        concerns_kernel=ctx.kernel is not None or entry.startswith(_KERNEL_FAMILIES),
    )


_KERNEL_FAMILIES = ("jax_nbhelp.catalog.run_scoped.", "jax_nbhelp.catalog.pallas.")


def at(location: Location | None) -> str:
    """`` at In [2], line 5`` for a sentence about the line, or nothing when it is unknown."""
    return f" at {location.label}" if location is not None else ""


def prose(text: str) -> str:
    """A paragraph written across lines (an entry's ``WHY``), as one line of text."""
    return " ".join(text.split())


def def_location(ctx: ErrorContext, function: Any) -> Location | None:
    """The ``def`` line of a user's function (a custom rule JAX's traceback does not show),
    found from its code object; None for a function that is not the user's."""
    code = getattr(function, "__code__", None)
    if code is None:
        return None
    place = ctx.locate(code.co_filename, code.co_firstlineno, code.co_name)
    if place is None or place.source is None:
        return None
    # co_firstlineno is the first decorator's line: the rewrite wants the def's line
    lines = place.source.splitlines()
    line = place.lineno
    while line <= len(lines) and not lines[line - 1].lstrip().startswith(("def ", "async def ")):
        line += 1
    return ctx.locate(code.co_filename, line - (place.lineno - code.co_firstlineno),
                      code.co_name) or place
