"""Fix: take ``@jax.jit`` off a helper that runs inside a Pallas kernel.

Inside a kernel, ``jax.jit`` only draws a call boundary, but the GPU kernel interpreter does
not step into it: it hands the jitted call to XLA, which cannot lower a collective
``run_scoped``. Without the decorator the helper is traced straight into the kernel.
"""

from __future__ import annotations

import libcst as cst

from ._cst import dotted_name
from .errors import CannotRewrite
from .magics import rewrite_cell

__all__ = ["is_jit_decorator", "remove_jit_decorator", "remove_jit_decorator_python"]


def _ends_with_jit(expr: cst.BaseExpression) -> bool:
    name = dotted_name(expr) or ""
    return name == "jit" or name.endswith(".jit")


def is_jit_decorator(expr: cst.BaseExpression) -> bool:
    """``@jax.jit``, ``@jit``, ``@jax.jit(...)`` or ``@partial(jax.jit, ...)``."""
    if _ends_with_jit(expr):
        return True
    if isinstance(expr, cst.Call):
        if _ends_with_jit(expr.func):
            return True
        callee = dotted_name(expr.func) or ""
        if callee == "partial" or callee.endswith(".partial"):
            return bool(expr.args) and _ends_with_jit(expr.args[0].value)
    return False


class _DropJit(cst.CSTTransformer):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.definitions = 0
        self.dropped = 0

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        if updated_node.name.value != self.name:
            return updated_node
        self.definitions += 1
        kept = [d for d in updated_node.decorators if not is_jit_decorator(d.decorator)]
        if len(kept) == len(updated_node.decorators):
            return updated_node
        self.dropped += 1
        changes: dict[str, object] = {"decorators": kept}
        if not kept and updated_node.decorators:
            # Comments and blank lines above the first decorator stay above the `def`.
            changes["leading_lines"] = [
                *updated_node.leading_lines,
                *updated_node.decorators[0].leading_lines,
            ]
        return updated_node.with_changes(**changes)


def remove_jit_decorator_python(source: str, name: str) -> str:
    """Like :func:`remove_jit_decorator` for plain Python (no IPython syntax)."""
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        raise CannotRewrite("The code can't be parsed as Python.") from None
    dropper = _DropJit(name)
    new = module.visit(dropper)
    if dropper.definitions == 0:
        raise CannotRewrite(f"The code defines no function called {name}.")
    if dropper.dropped == 0:
        raise CannotRewrite(
            f"{name} has no jax.jit decorator here; if it is wrapped elsewhere "
            f"({name} = jax.jit(...)), call the unwrapped function inside the kernel."
        )
    return new.code


def remove_jit_decorator(source: str, name: str) -> str:
    """Remove jit decorators from every ``def name`` in ``source`` (a cell or a module).

    Other decorators, comments and IPython syntax are kept. Raises :class:`CannotRewrite`.
    """
    return rewrite_cell(source, lambda code: remove_jit_decorator_python(code, name))
