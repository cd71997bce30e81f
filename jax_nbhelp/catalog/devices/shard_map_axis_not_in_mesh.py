"""A ``jax.shard_map`` whose specs, or whose function's collectives, name an axis its mesh
does not have.

Inside ``jax.shard_map(f, mesh=mesh, in_specs=..., out_specs=...)`` the mapped axes are the
mesh's: ``P('batch')`` shards along the mesh axis ``'batch'`` and ``lax.psum(x, 'batch')``
sums along it. A name the mesh lacks fails in two ways. In a spec, JAX says ``shard_map
in_specs argument must refer to an axis marked as manual ({'data'}), but: in_specs refers to
'batch'``, which does not say that ``{'data'}`` is the mesh. In a collective of ``f``, JAX
raises a bare ``AssertionError`` with no message at all, pointing at the collective.

Reports: jax-ml/jax#3120 (the same name mismatch between a map and its ``psum``, then
reported as "might win an overall bad-JAX-error-message award"), jax-ml/jax#18823 and
jax-ml/jax#18951 (shard_map spec errors that named neither the spec nor the argument),
jax-ml/jax#15602 (shard_map's spec messages rewritten to be read by users).
"""

from __future__ import annotations

import ast
import re

from jax_nbhelp.catalog import _entry, _tracing
from jax_nbhelp.catalog._example import NO_FIX, Example
from jax_nbhelp.catalog._map_site import COLLECTIVE_RE, MapSite, call_on_line, map_site
from jax_nbhelp.core.model import Diagnosis, Fix, Location
from jax_nbhelp.diagnosis.context import ErrorContext
from jax_nbhelp.diagnosis.names import dotted
from jax_nbhelp.fix.fix_builders import rewrite_fix

CODE = "JNH405"
TITLE = "shard_map names an axis its mesh does not have"

SPEC = "argument must refer to an axis marked as manual"
TRIGGERS = (SPEC, "AssertionError")

_SPEC_RE = re.compile(r"\((?:frozenset\()?\{(?P<manual>[^{}]*)\}\)?\)")
_REFERS_RE = re.compile(r"(?P<which>in_specs|out_specs) refers to (?P<names>.+)")
_QUOTED_RE = re.compile(r"'([^']*)'|\"([^\"]*)\"")
_KINDS = ("shard_map",)

_IMPORTS = ("import jax, jax.numpy as jnp\n"
            "from jax.sharding import Mesh, PartitionSpec as P\n"
            "shard_map = jax.shard_map")
_MESH = "mesh = Mesh(jax.devices(), ('data',))"
_TOTAL = '''\
def total(a):
    return jax.lax.psum(a.sum(), 'batch')'''
_FIXED_TOTAL = _TOTAL.replace("'batch'", "'data'")
_XS = "xs = jnp.arange(8.0)"
_RIGHT = "float(out) == 28.0"

EXAMPLES = (
    # The collective names 'batch'; the one-axis mesh calls its axis 'data'.
    Example(
        setup=(_IMPORTS, _MESH, _TOTAL, _XS),
        failing="out = jax.jit(shard_map(total, mesh=mesh, in_specs=P('data'), "
                "out_specs=P()))(xs)",
        fix="Use the mesh axis 'data' in psum",
        check=_RIGHT,
        fixed=(_IMPORTS, _MESH, _FIXED_TOTAL, _XS,
               "out = jax.jit(shard_map(total, mesh=mesh, in_specs=P('data'), "
               "out_specs=P()))(xs)"),
    ),
    # A spec names an axis the mesh lacks: which name was meant is the user's call.
    Example(
        setup=(_IMPORTS, _MESH, _XS),
        failing="out = jax.jit(shard_map(lambda a: jax.lax.psum(a.sum(), 'data'), mesh=mesh, "
                "in_specs=P('batch'), out_specs=P()))(xs)",
        fix=NO_FIX,
        check=_RIGHT,
        fixed=(_IMPORTS, _MESH, _XS,
               "out = jax.jit(shard_map(lambda a: jax.lax.psum(a.sum(), 'data'), mesh=mesh, "
               "in_specs=P('data'), out_specs=P()))(xs)"),
    ),
)

WHY = _entry.prose("""
jax.shard_map runs its function once per device of the mesh. The mesh's axis names are the
only names there: in_specs and out_specs say along which mesh axes each argument and output
is split, and a collective such as lax.psum(x, name) combines along a mesh axis. A name the
mesh does not have has no devices along it.
""")


def _names(text: str) -> tuple[str, ...]:
    return tuple(single or double for single, double in _QUOTED_RE.findall(text))


def _axes(names: tuple[str, ...]) -> str:
    if not names:
        return "no axes"
    word = "axis" if len(names) == 1 else "axes"
    return f"the {word} " + ", ".join(repr(name) for name in names)


def _mesh_axes(ctx: ErrorContext, site: MapSite | None) -> tuple[str, ...] | None:
    return ctx.mesh_axes.get(site.mesh) if site is not None and site.mesh else None


def _collective_axis(location: Location) -> tuple[str, str] | None:
    """The collective on the user's line and the one axis it names as a string literal."""
    parsed = _tracing.parse(location.source)
    if parsed is None:
        return None
    found = []
    for node in ast.walk(parsed[0]):
        if not (isinstance(node, ast.Call) and node.lineno <= location.lineno
                <= (node.end_lineno or 0)):
            continue
        op = (dotted(node.func) or "").rsplit(".", 1)[-1]
        match = COLLECTIVE_RE.match(f"{op}(")
        if match is None:
            continue
        position = 0 if op in ("axis_index", "axis_size") else 1
        axis = next((keyword.value for keyword in node.keywords if keyword.arg == "axis_name"),
                    node.args[position] if len(node.args) > position else None)
        if isinstance(axis, ast.Constant) and isinstance(axis.value, str):
            found.append((op, axis.value))
    return found[0] if len(found) == 1 else None


def diagnose(ctx: ErrorContext) -> Diagnosis | None:
    link = ctx.find(SPEC)
    if link is not None and link.is_a("ValueError"):
        return _spec(ctx, link.message, link.summary.splitlines()[0])
    top = ctx.top
    # JAX's bare assert: no message, raised at a collective of the user's function.
    if top.type_name == "AssertionError" and not top.message.strip():
        return _collective(ctx)
    return None


def _spec(ctx: ErrorContext, message: str, error: str) -> Diagnosis | None:
    refers = _REFERS_RE.search(message)
    manual = _SPEC_RE.search(message)
    if refers is None or manual is None:
        return None
    which, named = refers["which"], _names(refers["names"])
    manual_axes = _names(manual["manual"])
    location = ctx.deepest_user_location()
    site = call_on_line(location, "shard_map") if location is not None else None
    mesh_axes = _mesh_axes(ctx, site) or manual_axes
    subject = _tracing.quoted_line(location, "A jax.shard_map call")
    missing = tuple(name for name in named if name not in mesh_axes)
    mesh = site.mesh if site is not None and site.mesh else "its mesh"
    notes: list[str] = []
    if missing:
        explanation = (f"{subject} gives shard_map {which} that name {_axes(missing)}, but "
                       f"{mesh} has only {_axes(mesh_axes)}.")
        notes.append(f"Use one name in both places: make the mesh with the axis "
                     f"{missing[0]!r}, or write P({mesh_axes[0]!r}) in {which} (and the same "
                     "name in the function's collectives)." if mesh_axes else
                     "Make the mesh with the axes the specs name.")
    else:
        explanation = (f"{subject} gives shard_map {which} that name {_axes(named)}, which "
                       f"{mesh} has but this shard_map does not map by hand: only "
                       f"{_axes(manual_axes)} are manual here (axis_names=).")
        notes.append("Add the axis to shard_map's axis_names, or leave it out of the specs.")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=ctx.failing_cell(), notes=notes, error=error)


def _collective(ctx: ErrorContext) -> Diagnosis | None:
    location = ctx.deepest_user_location()
    asked = _collective_axis(location) if location is not None else None
    site = map_site(ctx, ctx.top.user_frames, location, _KINDS)
    mesh_axes = _mesh_axes(ctx, site)
    if location is None or asked is None or site is None or mesh_axes is None:
        return None
    op, axis = asked
    if axis in mesh_axes:
        return None  # the mesh has that axis: this assert is about something else
    subject = _tracing.quoted_line(location, f"A {op}")
    explanation = (f"{subject} asks for the axis {axis!r}, but the jax.shard_map at "
                   f"{site.location.label} maps {location.function} over {site.mesh}, which "
                   f"has only {_axes(mesh_axes)}. JAX stops at an internal assert, with no "
                   "message.")
    fixes: tuple[Fix, ...] = ()
    notes: list[str] = []
    if len(mesh_axes) == 1:
        fixes = (_rename_fix(ctx, location, op, axis, mesh_axes[0]),)
    else:
        notes.append(f"Name one of the mesh's axes in the {op} call "
                     f"({', '.join(map(repr, mesh_axes))}), or make the mesh with an axis "
                     f"{axis!r}.")
    return _entry.diagnosis(ctx, __name__, explanation, location=location,
                            call_site=site.location, fixes=fixes, notes=notes,
                            error="AssertionError (raised inside JAX, with no message)")


def _rename_fix(ctx: ErrorContext, location: Location, op: str, old: str, new: str) -> Fix:
    def transform(source: str) -> str:
        from jax_nbhelp.rewrite.collective_axis_rename import rename_collective_axis

        return rename_collective_axis(source, location.lineno, old, new)

    return rewrite_fix(
        ctx, location, transform, label=f"Use the mesh axis {new!r} in {op}",
        summary=f"Write {new!r} for {old!r} in the {op} call, then re-run.",
        safety=(f"The mesh has one axis, {new!r}, so it is the only axis a collective inside "
                f"this shard_map can combine over: {op} now does that."),
        safe=True)
