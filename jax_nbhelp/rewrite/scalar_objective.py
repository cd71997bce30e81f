"""Fix: a function differentiated with ``jax.grad`` returns an array of one element (shape
``(1,)``, ``(1, 1)``): differentiate its only element. ``jax.grad(f)(x)`` becomes
``jax.grad(lambda *args: f(*args).reshape(()))(x)`` at the call on the given line; ``f``
itself is left as it is for its other callers.
"""

from __future__ import annotations

from functools import lru_cache

import libcst as cst

from ._cst import dotted_name, locate, rewrite_calls
from .errors import CannotRewrite
from .magics import rewrite_line

__all__ = ["differentiate_only_element"]

_GRADS = ("grad", "value_and_grad")


def _python(source: str, lineno: int, function: str) -> str:
    located = locate(source, lineno)
    targets = [site.node for site in located.calls_at(lineno)
               if (dotted_name(site.node.func) or "").rsplit(".", 1)[-1] in _GRADS
               and site.node.args and site.node.args[0].keyword is None
               and dotted_name(site.node.args[0].value) == function]
    if len(targets) != 1:
        raise CannotRewrite(f"Line {lineno} has no single jax.grad({function}, ...) call to "
                            "rewrite.")

    def change(call: cst.Call) -> cst.Call:
        wrapped = cst.parse_expression(f"lambda *args: {function}(*args).reshape(())")
        first = call.args[0].with_changes(value=wrapped)
        return call.with_changes(args=[first, *call.args[1:]])

    return rewrite_calls(located.module, targets, change).code


@lru_cache(maxsize=64)  # a later error of the cell asks again
def differentiate_only_element(source: str, lineno: int, function: str) -> str:
    """Differentiate the only element of ``function``'s one-element output at the grad
    call on ``lineno``. Raises :class:`CannotRewrite`."""
    return rewrite_line(source, lineno, lambda code: _python(code, lineno, function))
