"""Fix: ``jax.vmap(f, in_axes={'a': 0})`` for a function of one argument becomes
``in_axes=({'a': 0},)``.

``in_axes`` has one entry per positional argument, so a dict (or list) meant for the single
argument has to sit in a one-element tuple; JAX reads a bare one as the spec of the whole
argument tuple and refuses it.
"""

from __future__ import annotations

import libcst as cst

from ._cst import dotted_name, locate, rewrite_calls
from .errors import CannotRewrite
from .magics import rewrite_line

__all__ = ["in_axes_as_tuple"]


def _python(code: str, lineno: int) -> str:
    located = locate(code, lineno)
    targets = [site.node for site in located.calls_at(lineno)
               if (dotted_name(site.node.func) or "").rsplit(".", 1)[-1] == "vmap"
               and any(arg.keyword is not None and arg.keyword.value == "in_axes"
                       and isinstance(arg.value, cst.Dict | cst.List) for arg in site.node.args)]
    if len(targets) != 1:
        raise CannotRewrite(f"Line {lineno} has no single vmap(..., in_axes={{...}}) call whose "
                            "in_axes to put in a tuple.")

    def wrap(call: cst.Call) -> cst.Call:
        args = [arg.with_changes(value=cst.Tuple([cst.Element(arg.value, comma=cst.Comma())]))
                if arg.keyword is not None and arg.keyword.value == "in_axes" else arg
                for arg in call.args]
        return call.with_changes(args=args)

    return rewrite_calls(located.module, targets, wrap).code


def in_axes_as_tuple(source: str, lineno: int) -> str:
    """Put the dict or list ``in_axes`` of the ``vmap`` call on 1-based ``lineno`` in a
    one-element tuple. Raises :class:`CannotRewrite`."""
    return rewrite_line(source, lineno, lambda code: _python(code, lineno))
