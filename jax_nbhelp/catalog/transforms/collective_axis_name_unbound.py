"""A collective (``lax.psum``, ``pmean``, ``all_gather``, ``axis_index``, ``ppermute``, ...)
asks for an axis name that no enclosing transform binds.

``lax.psum(x, 'batch')`` sums over the mapped axis called ``'batch'``. Only a transform that
maps a function can give an axis that name: ``jax.pmap(f, axis_name='batch')``,
``jax.vmap(f, axis_name='batch')`` or a ``shard_map`` over a mesh with a ``'batch'`` axis.
``jax.pmap(f)`` without ``axis_name=``, or plain ``jax.jit``, leaves the name unbound, and JAX
raises ``NameError: Found an unbound axis name: batch. To fix this, please call psum under
`jax.shard_map`.`` (older releases: ``NameError: unbound axis name: batch``). For a ``pmap``
or ``vmap`` user the advice to use ``shard_map`` is beside the point: their map only needs
the name.

Reports: jax-ml/jax#3120 (psum under ``pmap`` without ``axis_name``; the fix was
``pmap(..., axis_name='batch')``), jax-ml/jax#1347 (``psum`` under plain ``jit``),
google/jaxopt#436 (a documentation example run with ``pmap``), patrick-kidger/equinox#111
(``lax.pmean`` inside ``filter_pmap``).
"""

from __future__ import annotations

import re

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import JAX_IMPORTS, NO_FIX, Example
from jax_nbhelp.catalog._map_site import COLLECTIVE_RE, MapSite, map_site
from jax_nbhelp.core.model import Diagnosis, Fix
from jax_nbhelp.diagnosis.context import ErrorContext, Link
from jax_nbhelp.diagnosis.match import Match
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH401"
TITLE = "Collective over an axis name no transform binds"
MESSAGE = "unbound axis name"

_AXIS_RE = re.compile(r"unbound axis name:? (?P<axis>[^\s.,]+)")
_OPERATION_RE = re.compile(r"please call (?P<op>\w+) under")
_MAPS = ("pmap", "vmap")

_NORMALIZE = '''\
def normalize(x):
    return x / jax.lax.psum(x, "batch")'''
_ROWS = "rows = jnp.arange(1.0, 4.0)"
_RIGHT = "bool(jnp.allclose(out, rows / rows.sum(axis=0)))"

EXAMPLES = (
    # vmap without axis_name, called in the failing cell.
    Example(
        setup=(JAX_IMPORTS, _NORMALIZE, _ROWS),
        failing="out = jax.vmap(normalize)(rows)",
        fix="Name the vmap axis 'batch'",
        check=_RIGHT,
        fixed=(JAX_IMPORTS, _NORMALIZE, _ROWS,
               "out = jax.vmap(normalize, axis_name='batch')(rows)"),
    ),
    # pmap built in an earlier cell; one CPU device maps one row.
    Example(
        setup=(JAX_IMPORTS, _NORMALIZE, "per_device = jax.pmap(normalize)",
               "rows = jnp.arange(1.0, 4.0)[None]"),
        failing="out = per_device(rows)",
        fix="Name the pmap axis 'batch'",
        check=_RIGHT,
        fixed=(JAX_IMPORTS, _NORMALIZE, "per_device = jax.pmap(normalize, axis_name='batch')",
               "rows = jnp.arange(1.0, 4.0)[None]", "out = per_device(rows)"),
    ),
    # Plain jit: there is no mapped axis at all; what to write depends on what was meant.
    Example(
        setup=(JAX_IMPORTS, _NORMALIZE, _ROWS),
        failing="out = jax.jit(normalize)(rows)",
        fix=NO_FIX,
        check=_RIGHT,
        fixed=(JAX_IMPORTS, "def normalize(x):\n    return x / x.sum()", _ROWS,
               "out = jax.jit(normalize)(rows)"),
    ),
)

WHY = _entry.prose("""
A collective combines the values of every program along a mapped axis, and finds that axis
by its name. Only a transform that maps a function creates such an axis and names it:
jax.pmap(f, axis_name=...), jax.vmap(f, axis_name=...), or jax.shard_map over a mesh axis.
pmap and vmap without axis_name map an axis that has no name, and jax.jit maps nothing, so
there the name is unbound.
""")


MATCH = Match(MESSAGE, "NameError", _AXIS_RE)


def diagnose(ctx: ErrorContext, link: Link, axis_match: re.Match[str]) -> Diagnosis | None:
    axis = axis_match.group("axis")
    location = ctx.deepest_user_location()
    operation = (COLLECTIVE_RE.search(location.line) if location is not None else None) \
        or _OPERATION_RE.search(link.message)
    op = operation.group("op") if operation else "the collective"
    site = map_site(ctx, link.user_frames, location, _MAPS)
    subject = _tracing.quoted_line(location, f"A {op}")
    function = location.function if location is not None else "the function"
    explanation = f"{subject} asks for the mapped axis {axis!r}, but no transform binds it: "
    fixes: tuple[Fix, ...] = ()
    notes: list[str] = []
    if site is None:
        explanation += (f"{function} runs under jax.jit or on its own, where there is one "
                        "program and no mapped axis to combine over.")
        notes.append(
            f"If {function} is meant to run once per row, map it and name the axis: "
            f"jax.vmap({function}, axis_name={axis!r})(x) on one device, "
            f"jax.pmap({function}, axis_name={axis!r})(x) across devices, or jax.shard_map "
            f"over a mesh with an axis {axis!r}. If you meant to reduce over an array axis, "
            f"use jnp.sum(x, axis=...) instead of {op}."
        )
    elif site.axis_name is not None:
        explanation += (f"the jax.{site.kind} at {site.location.label} names its axis "
                        f"{site.axis_name}, not {axis!r}.")
        notes.append(f"Use one name in both places: axis_name={axis!r} on the {site.kind}, or "
                     f"{site.axis_name} in the {op} call (and in every other collective of "
                     f"{function}).")
    else:
        explanation += (f"the jax.{site.kind} at {site.location.label} maps {function} over "
                        "an axis without a name. JAX's advice to use jax.shard_map does not "
                        f"apply: the {site.kind} only needs axis_name={axis!r}.")
        if site.decorator:
            notes.append(f"Write the decorator as @partial(jax.{site.kind}, "
                         f"axis_name={axis!r}) (from functools import partial).")
        else:
            fixes = (_name_axis_fix(ctx, site, function, axis),)
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=site.location if site is not None else None,
                            fixes=fixes, notes=notes, error=link.summary.splitlines()[0])


def _name_axis_fix(ctx: ErrorContext, site: MapSite, function: str, axis: str) -> Fix:
    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.axis_name import bind_axis_name

        return bind_axis_name(source, site.location.lineno, function, axis)

    return rewrite_fix(
        ctx, site.location, transform,
        label=f"Name the {site.kind} axis {axis!r}",
        summary=(f"Add axis_name={axis!r} where jax.{site.kind} maps {function}, so the "
                 "collective finds its axis; then re-run."),
        safety=(f"The {site.kind} maps {function} as before; the collective now combines "
                f"the values along that mapped axis, which is what naming {axis!r} asks for."),
        safe=True,
    )
