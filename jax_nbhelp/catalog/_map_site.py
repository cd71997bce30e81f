"""Where the user maps the function a collective runs in: the ``jax.pmap``, ``jax.vmap`` or
``jax.shard_map`` call (or decorator) the notebook's cells show.

Both collective entries need it: JNH401 to name the axis of a ``pmap``/``vmap``, JNH405 to
read the mesh of a ``shard_map``. Only source is read, never a live frame or object.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from jax_nbhelp.catalog import _tracing
from jax_nbhelp.core.model import Location
from jax_nbhelp.diagnosis.context import ErrorContext, Frame
from jax_nbhelp.diagnosis.names import dotted

# How the user's line names a collective (JAX's message says psum for pmean too).
COLLECTIVE_RE = re.compile(r"\b(?P<op>psum|pmean|pmax|pmin|all_gather|all_to_all|axis_index|"
                           r"axis_size|ppermute|pshuffle|psum_scatter|pbroadcast)\s*\(")


@dataclass(frozen=True)
class MapSite:
    """Where the user maps the function whose collective failed."""

    kind: str  # "pmap", "vmap" or "shard_map"
    location: Location  # the line of the call (or of the decorator)
    axis_name: str | None  # what a pmap/vmap binds already, as written
    decorator: bool = False
    mesh: str | None = None  # a shard_map's mesh argument, as written


def _last_name(node: ast.AST) -> str:
    """``pmap`` for ``jax.pmap``; "" for what is not a dotted name."""
    return (dotted(node) or "").rsplit(".", 1)[-1]


def _keyword(keywords: list[ast.keyword], name: str) -> str | None:
    """The ``name=`` a call passes, as written."""
    bound = next((keyword.value for keyword in keywords if keyword.arg == name), None)
    return ast.unparse(bound) if bound is not None else None


def _mesh(call: ast.Call, first: int) -> str | None:
    """A shard_map's ``mesh``: its keyword, or the positional argument after the function."""
    written = _keyword(call.keywords, "mesh")
    if written is None and len(call.args) > first:
        written = ast.unparse(call.args[first])
    return written


def _map_calls(tree: ast.Module, lineno: int, function: str,
               kinds: tuple[str, ...]) -> list[ast.Call]:
    """The ``kind(function, ...)`` calls on ``lineno``."""
    return [node for node in ast.walk(tree)
            if isinstance(node, ast.Call) and node.lineno <= lineno <= (node.end_lineno or 0)
            and _last_name(node.func) in kinds
            and node.args and dotted(node.args[0]) == function]


def _site(location: Location, call: ast.Call) -> MapSite:
    kind = _last_name(call.func)
    return MapSite(kind, location, _keyword(call.keywords, "axis_name"),
                   mesh=_mesh(call, 1) if kind == "shard_map" else None)


def _from_caller(ctx: ErrorContext, caller: Frame, function: str,
                 kinds: tuple[str, ...]) -> MapSite | None:
    """The map on the caller's line (``jax.vmap(f)(x)``), or the one its callee was bound to
    in a cell (``per_device = jax.pmap(f)``, then ``per_device(x)``)."""
    where = caller.location
    parsed = _tracing.parse(where.source) if where is not None else None
    if where is None or parsed is None:
        return None
    tree, _ = parsed
    calls = _map_calls(tree, where.lineno, function, kinds)
    if len(calls) == 1:
        return _site(where, calls[0])
    callees = {dotted(node.func) for node in ast.walk(tree)
               if isinstance(node, ast.Call) and node.lineno == where.lineno}
    callees |= {dotted(node.args[0]) for node in ast.walk(tree)
                if isinstance(node, ast.Call) and node.lineno == where.lineno and node.args}
    for number in sorted(ctx.cell_sources, reverse=True):
        cell = _tracing.parse(ctx.cell_sources[number])
        if cell is None:
            continue
        for node in cell[0].body:
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name) and node.targets[0].id in callees
                    and isinstance(node.value, ast.Call)):
                continue
            maps = _map_calls(cell[0], node.lineno, function, kinds)
            line = ctx.cell(number, node.lineno) if maps else None
            if line is not None:
                return _site(line, maps[0])
    return None


def _from_decorator(ctx: ErrorContext, location: Location, function: str,
                    kinds: tuple[str, ...]) -> MapSite | None:
    """``@jax.pmap``, ``@partial(jax.pmap, ...)`` or ``@jax.shard_map(mesh=...)`` on the
    function's own ``def``."""
    parsed = _tracing.parse(location.source)
    definition = _tracing.find_def(parsed[0], function, None) if parsed is not None else None
    if definition is None:
        return None
    for decorator in definition.decorator_list:
        name = _last_name(decorator.func if isinstance(decorator, ast.Call) else decorator)
        first = 0
        if name == "partial" and isinstance(decorator, ast.Call) and decorator.args:
            name = _last_name(decorator.args[0])  # @partial(jax.pmap, axis_name=...)
            first = 1
        if name in kinds:
            line = (ctx.cell(location.cell, decorator.lineno) if location.cell is not None
                    else None) or location
            keywords = decorator.keywords if isinstance(decorator, ast.Call) else []
            mesh = (_mesh(decorator, first) if name == "shard_map"
                    and isinstance(decorator, ast.Call) else None)
            return MapSite(name, line, _keyword(keywords, "axis_name"), decorator=True,
                           mesh=mesh)
    return None


def call_on_line(location: Location, kind: str) -> MapSite | None:
    """The one ``kind`` call (``shard_map(...)``) on ``location``'s line, however it maps."""
    parsed = _tracing.parse(location.source)
    if parsed is None:
        return None
    calls = [node for node in ast.walk(parsed[0]) if isinstance(node, ast.Call)
             and node.lineno <= location.lineno <= (node.end_lineno or 0)
             and _last_name(node.func) == kind]
    return _site(location, calls[0]) if len(calls) == 1 else None


def map_site(ctx: ErrorContext, frames: tuple[Frame, ...], location: Location | None,
             kinds: tuple[str, ...]) -> MapSite | None:
    """Where the function holding the collective at ``location`` is mapped by one of
    ``kinds``, if the cells show it."""
    if location is None or not location.function:
        return None
    function = location.function
    for caller in reversed(frames[:-1]):
        found = _from_caller(ctx, caller, function, kinds)
        if found is not None:
            return found
    return _from_decorator(ctx, location, function, kinds)
