"""Fix: name the mapped axis where ``jax.pmap`` or ``jax.vmap`` maps a function, so the
collectives inside it (``lax.psum(x, 'batch')``) find the axis they ask for.

``jax.pmap(f)`` maps ``f`` over an axis with no name; a ``psum`` over ``'batch'`` inside it
then fails with "unbound axis name: batch". ``jax.pmap(f, axis_name='batch')`` binds it.
"""

from __future__ import annotations

import libcst as cst

from ._cst import dotted_name, locate, rewrite_calls
from ._keywords import has_keyword, set_keyword
from .errors import CannotRewrite
from .magics import rewrite_line

__all__ = ["MAPS", "bind_axis_name", "bind_axis_name_python"]

MAPS = ("pmap", "vmap")


def map_kind(call: cst.Call) -> str | None:
    """``"pmap"`` or ``"vmap"`` for a call of either (however the user spells jax), else None."""
    name = (dotted_name(call.func) or "").rsplit(".", 1)[-1]
    return name if name in MAPS else None


def bind_axis_name_python(source: str, lineno: int, function: str, axis: str) -> str:
    """Like :func:`bind_axis_name` for plain Python (no IPython syntax)."""
    located = locate(source, lineno)
    targets = [site.node for site in located.calls_at(lineno)
               if map_kind(site.node) is not None and site.node.args
               and site.node.args[0].keyword is None
               and dotted_name(site.node.args[0].value) == function]
    if len(targets) != 1:
        raise CannotRewrite(f"Line {lineno} has no single pmap({function}) or vmap({function}) "
                            "call to give axis_name= to.")
    (call,) = targets
    if has_keyword(call, "axis_name"):
        raise CannotRewrite(f"The {map_kind(call)} call on line {lineno} already names its axis.")
    value = cst.SimpleString(repr(axis))
    return rewrite_calls(
        located.module, targets, lambda node: set_keyword(node, "axis_name", value)
    ).code


def bind_axis_name(source: str, lineno: int, function: str, axis: str) -> str:
    """Give the ``pmap(function)``/``vmap(function)`` call at 1-based ``lineno``
    ``axis_name=axis``.

    ``source`` is a notebook cell (IPython syntax allowed) or a module. Raises
    :class:`CannotRewrite`.
    """
    return rewrite_line(source, lineno,
                        lambda code: bind_axis_name_python(code, lineno, function, axis))
