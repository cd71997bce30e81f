"""Fix: a function differentiated with ``jax.grad`` returns ``(value, aux)``: pass
``has_aux=True`` and receive the auxiliary output beside the gradient.

``g = jax.grad(f)(x)`` becomes ``g, aux = jax.grad(f, has_aux=True)(x)``;
``v, g = jax.value_and_grad(f)(x)`` becomes ``(v, aux), g = jax.value_and_grad(f,
has_aux=True)(x)``; a target already unpacked that way (``g, aux = ...``, ``(v, aux), g =
...``) stays as it is. The name the auxiliary output gets is chosen by the caller (free in the
cell). Only a plain assignment of the call is rewritten: elsewhere the caller's code would
have to change how it reads the result.
"""

from __future__ import annotations

from functools import lru_cache

import libcst as cst

from ._cst import LineTransformer, dotted_name, transform
from ._keywords import set_keyword
from .magics import rewrite_line

__all__ = ["add_has_aux"]

_GRADS = ("grad", "value_and_grad")


class _HasAux(LineTransformer):
    def __init__(self, lineno: int, aux: str) -> None:
        super().__init__(lineno)
        self.aux = aux

    def leave_Assign(self, original_node: cst.Assign,
                     updated_node: cst.Assign) -> cst.Assign:
        if not self.spans(original_node):
            return updated_node
        call = updated_node.value
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Call)):
            return updated_node
        kind = (dotted_name(call.func.func) or "").rsplit(".", 1)[-1]
        if kind not in _GRADS or len(updated_node.targets) != 1:
            return updated_node
        target = updated_node.targets[0].target
        aux = cst.Name(self.aux)
        new_target: cst.BaseAssignTargetExpression
        if isinstance(target, cst.Tuple | cst.List) and len(target.elements) == 2 and (
                kind == "grad" or isinstance(target.elements[0].value, cst.Tuple | cst.List)):
            # already unpacked as has_aux=True returns it: (grad, aux), ((value, aux), grad)
            new_target = target
        elif kind == "grad" and isinstance(target, cst.Name):
            new_target = cst.Tuple(
                [cst.Element(target), cst.Element(aux)], lpar=[], rpar=[])
        elif kind == "value_and_grad" and isinstance(target, cst.Tuple) and \
                len(target.elements) == 2:
            value, gradient = target.elements
            pair = cst.Tuple([cst.Element(value.value), cst.Element(aux)])
            new_target = target.with_changes(elements=[
                cst.Element(pair, comma=value.comma), gradient])
        else:
            return updated_node
        grad_call = set_keyword(call.func, "has_aux", cst.Name("True"))
        self.changed += 1
        return updated_node.with_changes(
            targets=[updated_node.targets[0].with_changes(target=new_target)],
            value=call.with_changes(func=grad_call))


def _python(source: str, lineno: int, aux: str) -> str:
    nothing = (f"Line {lineno} is not one assignment of a jax.grad(f)(...) or "
               "jax.value_and_grad(f)(...) call, which is what jax_nbhelp rewrites.")
    return transform(source, _HasAux(lineno, aux), nothing, once=True).code


@lru_cache(maxsize=64)  # a later error of the cell asks again
def add_has_aux(source: str, lineno: int, aux: str = "aux") -> str:
    """Pass ``has_aux=True`` to the grad call assigned on ``lineno`` and bind the auxiliary
    output to ``aux``. Raises :class:`CannotRewrite`."""
    return rewrite_line(source, lineno, lambda code: _python(code, lineno, aux))
